"""How the verl backend runs its processes: executables, the Ray cluster, timeouts, retries.

Nothing here changes what a run computes, so it is not part of the experiment (a run may be
resumed with other values): `VerlSettings` holds the recipe, `VerlRuntime` the plumbing.

Every GPU job is a fresh process, so the GPU memory of training, evaluation and serving is
released between them:

* training: ``<python> -m verl.trainer.main_ppo <overrides>``, or with `ray_address`,
  ``<python> -m ray.scripts.scripts job submit --address ... -- python -m verl.trainer.main_ppo``;
* evaluation: ``<python> -m harness.backends.verl.generate <request.json>`` (vLLM offline);
* serving: ``<python> -m vllm.entrypoints.cli.main serve <model> ...`` (the ``vllm`` script).

The module paths are settings, so a separate verl environment (``python``) or stand-ins for
tests (`tests/harness/verl/fake_*.py`) slot in without any other change.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field

from harness.backends.base import BackendUnavailable
from harness.backends.verl.versions import VerlLine

GPU_EXTRA = 'pip install -e ".[gpu]"  (or: pip install "envdesign-bench[gpu]")'

PPO_ENV: dict[str, str] = {
    "TOKENIZERS_PARALLELISM": "true",
    "NCCL_DEBUG": "WARN",
    "VLLM_LOGGING_LEVEL": "WARN",
    "VLLM_ALLOW_RUNTIME_LORA_UPDATING": "true",
    "VLLM_ALLREDUCE_USE_SYMM_MEM": "0",
    "CUDA_DEVICE_MAX_CONNECTIONS": "1",
    "NCCL_CUMEM_ENABLE": "0",
}
"""verl 0.6.1's ``PPO_RAY_RUNTIME_ENV`` (verl/trainer/constants_ppo.py), which verl applies only
to a Ray instance it starts itself; the harness sets them wherever it starts verl (a value
already in this process's environment wins, as in verl)."""
PPO_ENV_CURRENT: dict[str, str] = {
    "TOKENIZERS_PARALLELISM": "true",
    "NCCL_DEBUG": "WARN",
    "VLLM_LOGGING_LEVEL": "WARN",
    "VLLM_ALLOW_RUNTIME_LORA_UPDATING": "true",
    "VLLM_DISABLE_COMPILE_CACHE": "1",
    "HCCL_HOST_SOCKET_PORT_RANGE": "auto",
    "HCCL_NPU_SOCKET_PORT_RANGE": "auto",
    "HSA_NO_SCRATCH_RECLAIM": "1",
}
"""verl 0.9.1's unconditional ``PPO_RAY_RUNTIME_ENV``: it dropped the CUDA and NCCL settings
above (``CUDA_DEVICE_MAX_CONNECTIONS=1`` it now sets only for Megatron on Ampere/Hopper; FSDP2
must not have it) and disables vLLM's compile cache."""
PPO_ENVS: dict[VerlLine, dict[str, str]] = {"0.6": PPO_ENV, "0.9": PPO_ENV_CURRENT}


class VerlCommands(BaseModel):
    """The executables and modules the backend launches."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    python: str = Field(
        default_factory=lambda: sys.executable,
        description="Python of the trainer, the generator and the server (this one by default).",
    )
    trainer: tuple[str, ...] = ("-m", "verl.trainer.main_ppo")
    generator: tuple[str, ...] = ("-m", "harness.backends.verl.generate")
    server: tuple[str, ...] = ("-m", "vllm.entrypoints.cli.main", "serve")
    ray: tuple[str, ...] = ("-m", "ray.scripts.scripts")
    job_python: str = Field(
        "python", description="The python of the cluster's nodes, for submitted jobs."
    )
    requires: tuple[str, ...] = Field(
        ("verl", "vllm"), description="Packages `python` must import here (checked at start)."
    )


class VerlRuntime(BaseModel):
    """Where and how the backend's processes run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    commands: VerlCommands = Field(default_factory=VerlCommands)
    ray_address: str | None = Field(
        None,
        description="Submit each training round as a job to this Ray cluster (its dashboard "
        "address, e.g. http://head:8265); None: verl starts a private Ray instance.",
    )
    train_attempts: int = Field(
        3,
        ge=1,
        description="Runs of one round's trainer; a rerun resumes from the round's latest "
        "checkpoint (resume_mode=auto). An attempt that saved nothing new is not retried.",
    )
    poll_s: float = Field(2.0, gt=0, description="How often curves and servers are looked at.")
    serve_timeout_s: float = Field(
        1200.0, gt=0, description="How long a vLLM server may take to answer /health."
    )
    stop_grace_s: float = Field(
        30.0, ge=0, description="SIGTERM to SIGKILL, when a process group is stopped."
    )
    verl_version: str | None = Field(
        None,
        description="The verl release the trainer runs (e.g. 0.6.1), which picks the overrides' "
        "line; None = read from `commands.python`'s installed packages at launch. Set it where "
        "the trainer's verl cannot be seen from here (a dry run of a cluster, a Ray cluster).",
    )
    flash_attn: bool | None = Field(
        None,
        description="Whether flash-attn is usable where the trainer runs (it imports and every "
        "GPU has compute capability >= 8.0); None = probed with `commands.python` at launch.",
    )

    @property
    def submits_jobs(self) -> bool:
        return self.ray_address is not None

    def check_installed(self) -> None:
        """Raise `BackendUnavailable` naming the extra when a package `python` needs is missing.

        Only checked where `python` is this interpreter; with `ray_address` the trainer runs on
        the cluster, so verl is not needed here but Ray's job CLI is.
        """
        if self.commands.python != sys.executable:
            return
        needed = [p for p in self.commands.requires if not (self.submits_jobs and p == "verl")]
        if self.submits_jobs:
            needed.append("ray")
        missing = [name for name in needed if importlib.util.find_spec(name) is None]
        if missing:
            raise BackendUnavailable(
                f"the verl backend needs {', '.join(missing)}, which this environment lacks: "
                f"{GPU_EXTRA} on a CUDA machine"
            )


def ppo_environment(
    base: Mapping[str, str] | None = None, line: VerlLine = "0.6"
) -> dict[str, str]:
    """The `line`'s verl process settings, less those `base` (default: this environment)
    already sets."""
    present = os.environ if base is None else base
    return {key: value for key, value in PPO_ENVS[line].items() if key not in present}
