"""Whether this Python can run the trl backend: its packages, named by the extra to install."""

from __future__ import annotations

import importlib.util

from harness.backends.base import BackendUnavailable

__all__ = ["TRL_EXTRA", "check_installed", "missing_packages"]

TRL_EXTRA = "pip install 'envdesign-bench[trl]'"
NEEDED = {
    "trl": "trl",
    "transformers": "transformers",
    "peft": "peft",
    "datasets": "datasets",
    "accelerate": "accelerate",
    "fastapi": "transformers[serving] (transformers serve)",
    "uvicorn": "transformers[serving] (transformers serve)",
}


def missing_packages(*, engine_vllm: bool = False) -> list[str]:
    """The modules the backend imports that this Python lacks, each with what provides it."""
    needed = dict(NEEDED)
    if engine_vllm:
        needed["vllm"] = "vllm (engine or serve_engine vllm)"
    return [what for module, what in needed.items() if importlib.util.find_spec(module) is None]


def check_installed(*, engine_vllm: bool = False) -> None:
    """`BackendUnavailable` naming the extra when a package the backend imports is missing."""
    missing = missing_packages(engine_vllm=engine_vllm)
    if missing:
        raise BackendUnavailable(
            f"backend trl needs {', '.join(dict.fromkeys(missing))}, not installed here: "
            f"{TRL_EXTRA}"
        )
