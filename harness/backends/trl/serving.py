"""The `self` and `base` designers' server: ``transformers serve`` (or ``vllm serve``) on 127.0.0.1.

``transformers serve`` ships with transformers (its ``serving`` extra adds FastAPI and uvicorn)
and speaks the OpenAI chat API; pinned to one model (its positional argument), it answers only
requests for that model's name, which is the path it was given, so the endpoint's model is that
path. It lists no models for a local directory, so ready is ``/health`` answering 200 after the
model is loaded (it loads before it listens). ``vllm serve`` takes a served name and lists it.
A LoRA adapter is merged into a full model once, under ``serving/``, before it is served: both
servers load plain weights.
"""

from __future__ import annotations

import sys
from pathlib import Path

from harness.backends.processes import Launch
from harness.backends.servers import HOST, ModelServer, free_port
from harness.backends.trl.loading import Placement
from harness.backends.trl.settings import TrlSettings

__all__ = ["model_server", "servable", "serve_argv"]


def serve_argv(
    model: str, name: str, port: int, settings: TrlSettings, place: Placement
) -> tuple[str, ...]:
    """The server's command line for `model`, served as `name` on `port`."""
    if settings.serve_engine == "vllm":
        return (
            sys.executable, "-m", "vllm.entrypoints.cli.main", "serve", model,
            "--host", HOST, "--port", str(port), "--served-model-name", name,
            "--dtype", place.dtype,
            "--max-model-len", str(settings.max_prompt_length + settings.max_response_length),
        )  # fmt: skip
    return (
        sys.executable, "-m", "transformers.cli.transformers", "serve", model,
        "--host", HOST, "--port", str(port),
        "--device", place.device, "--dtype", place.dtype, "--log-level", "warning",
    )  # fmt: skip


def servable(model: str, policy: str, scratch: Path) -> str:
    """`model` as plain weights: an adapter directory is merged onto `policy` under `scratch`
    (once per adapter), anything else is served as it is."""
    if not (Path(model) / "adapter_config.json").is_file():
        return model
    out = scratch / f"merged-{Path(model).parent.name}"
    if (out / "config.json").is_file():
        return str(out)
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    base = AutoModelForCausalLM.from_pretrained(policy)
    merged = PeftModel.from_pretrained(base, model).merge_and_unload()
    merged.save_pretrained(out)
    AutoTokenizer.from_pretrained(model).save_pretrained(out)
    return str(out)


def model_server(
    model: str,
    policy: str,
    which: str,
    settings: TrlSettings,
    place: Placement,
    logs: Path,
    scratch: Path,
) -> ModelServer:
    """A server (not started) for `model`, its output in ``logs/serve-<which>.log``."""
    served = servable(model, policy, scratch)
    port = free_port()
    engine = settings.serve_engine
    name = served if engine == "transformers" else Path(served).name or served
    launch = Launch(serve_argv(served, name, port, settings, place), logs / f"serve-{which}.log")
    return ModelServer(launch, port, name, what=f"{engine} serve of {model}",
                       lists_models=engine == "vllm", grace_s=10.0)  # fmt: skip
