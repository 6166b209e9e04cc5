"""The command that serves a model with ``vllm serve`` for the `self` and `base` designers.

The server itself (started for one design step, stopped after it so its GPU memory is free
before the next round trains; ready when ``/v1/models`` lists the served name) is the shared
`harness.backends.servers.ModelServer`. Designers reach it through LiteLLM's ``hosted_vllm/``
provider (`designers.Endpoint`); Qwen3's reasoning goes to ``reasoning_content``
(``--reasoning-parser qwen3``), the answer to ``content``.
"""

from __future__ import annotations

from harness.backends.servers import HOST
from harness.backends.verl.runtime import VerlCommands
from harness.backends.verl.settings import VerlSettings

__all__ = ["serve_argv"]


def serve_argv(
    commands: VerlCommands, settings: VerlSettings, model: str, name: str, port: int | str
) -> tuple[str, ...]:
    """``vllm serve`` with vLLM 0.11.0's flags."""
    argv = [
        commands.python, *commands.server, model,
        "--host", HOST,
        "--port", str(port),
        "--served-model-name", name,
        "--tensor-parallel-size", str(settings.tensor_parallel),
        "--gpu-memory-utilization", str(settings.serve_gpu_memory_utilization),
    ]  # fmt: skip
    if settings.reasoning_parser:
        argv += ["--reasoning-parser", settings.reasoning_parser]
    if settings.serve_max_model_len is not None:
        argv += ["--max-model-len", str(settings.serve_max_model_len)]
    return tuple(argv)
