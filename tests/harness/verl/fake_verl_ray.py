"""A stand-in for ``python -m verl.trainer.main_ppo`` that does what verl does about Ray, then
trains as `fake_verl.py` does.

verl's ``run_ppo`` (0.6.1 and 0.9.1 alike) calls ``ray.init(**ray_kwargs.ray_init)`` with verl's
runtime_env and no address unless Ray is initialised already, so Ray takes the address from
``$RAY_ADDRESS``: the harness sets ``local``, and Ray starts a private instance on this node.
verl's TaskRunner is then a one-CPU actor of that instance and its FSDP and vLLM workers hold
its GPUs. This stand-in does the same with one CPU task (the TaskRunner) and, when the instance
has GPUs, one task per GPU (the workers); each reports the instance it ran in and the GPUs it
sees. Then ``ray.shutdown()``, and `fake_verl.py`'s round with the same argv.

Each start appends what it saw to ``$FAKE_VERL_RAY_LOG``. Ray counts a node's GPUs with NVML
and caps the count by ``CUDA_VISIBLE_DEVICES`` (``ray._private.resource_and_label_spec``);
``FAKE_VERL_RAY_NODE_GPUS=<n>`` makes NVML's count n on a machine without GPUs, so the private
instance sees what it would see on an n-GPU node.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from fake_verl import main as train
from fake_verl import overrides

from harness.backends.verl.runtime import PPO_ENV


def fake_node_gpus(count: int) -> None:
    """NVML's answer on an n-GPU node, for the Ray instance this process starts."""
    from ray._private.accelerators.nvidia_gpu import NvidiaGPUAcceleratorManager

    setattr(NvidiaGPUAcceleratorManager, "get_current_node_num_accelerators", lambda: count)  # noqa: B010


def probe() -> dict[str, Any]:
    """Where a task of the private instance ran, and the GPUs it was given."""
    import ray

    context = ray.get_runtime_context()
    return {
        "gcs_address": context.gcs_address,
        "gpu_ids": [str(i) for i in ray.get_gpu_ids()],
        "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
        "tokenizers_parallelism": os.environ.get("TOKENIZERS_PARALLELISM"),
    }


def private_instance(cfg: dict[str, Any]) -> dict[str, Any]:
    """``run_ppo``'s Ray part: init as verl does, the TaskRunner, the GPU workers, shutdown."""
    import ray

    if os.environ.get("FAKE_VERL_RAY_NODE_GPUS"):
        fake_node_gpus(int(os.environ["FAKE_VERL_RAY_NODE_GPUS"]))
    seen: dict[str, Any] = {"initialized_before": ray.is_initialized()}
    if not ray.is_initialized():  # verl/trainer/main_ppo.py, run_ppo
        env = {k: v for k, v in PPO_ENV.items() if k not in os.environ}  # get_ppo_ray_runtime_env
        runtime_env = {"env_vars": env, "working_dir": None}
        ray.init(num_cpus=cfg.get("ray_kwargs.ray_init.num_cpus"), runtime_env=runtime_env)
    seen["started_instance"] = ray._private.worker.global_worker.node.is_head()
    seen["gcs_address"] = ray.get_runtime_context().gcs_address
    seen["resources"] = ray.cluster_resources()
    seen["task_runner"], seen["workers"] = None, []
    # In a cluster it joined, verl's TaskRunner and workers would wait for ever for the CPUs and
    # GPUs the run's own task holds: say so rather than hang.
    if seen["started_instance"]:
        task = ray.remote(probe)
        seen["task_runner"] = ray.get(task.options(num_cpus=1).remote())
        gpus = int(seen["resources"].get("GPU", 0))
        workers = [task.options(num_cpus=0, num_gpus=1).remote() for _ in range(gpus)]
        seen["workers"] = ray.get(workers)
    ray.shutdown()
    seen["initialized_after"] = ray.is_initialized()
    return seen


def main(argv: list[str]) -> int:
    seen = {
        "ray_address": os.environ.get("RAY_ADDRESS"),
        "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
        "private": private_instance(overrides(argv)),
    }
    with open(os.environ["FAKE_VERL_RAY_LOG"], "a") as log:
        log.write(json.dumps(seen) + "\n")
    return train(argv)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
