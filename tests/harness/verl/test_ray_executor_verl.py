"""The Ray executor with the verl backend: each run a Ray task, and verl's own Ray inside it.

A run on the Ray executor is a Ray task holding the run's GPUs; its trainer is started with
``RAY_ADDRESS=local``, so verl's ``ray.init()`` brings up a private Ray instance on the node
rather than joining the cluster (where it would wait for the GPUs its own task holds). Here a
local Ray cluster declaring two GPUs runs two verl runs of one GPU each, at once, through the
real executor; its workers build the backend with the stand-ins (`fake_verl_ray_worker.py`),
whose trainer (`fake_verl_ray.py`) does what verl's ``run_ppo`` does about Ray before it trains
as `fake_verl.py`. Ray's NVML probe is made to report a 4-GPU node, so the private instances
count GPUs as they would on one: capped by the task's ``CUDA_VISIBLE_DEVICES``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.backends.verl import runtime as runtime_module
from harness.backends.verl.settings import verl_section
from harness.executors import RunOptions, plan
from harness.executors.base import run_job
from harness.executors.ray import RayExecutor
from tests.harness.test_loop import outcome
from tests.harness.verl.fake_verl_ray_worker import HOOK
from tests.harness.verl.test_orchestration import experiment, fake_logs
from tests.harness.verl.test_orchestration import runtime as stand_ins

pytestmark = pytest.mark.e2e

ray = pytest.importorskip("ray")

HERE = Path(__file__).resolve().parent
NODE_GPUS = 4
"""What NVML reports on the node the private instances start on."""


@pytest.fixture
def cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Path]]:
    """A one-node Ray cluster of two CPUs and two GPUs, started as ``ray start --head`` starts
    one (its address left where a bare ``ray.init()`` on the node finds it and joins), whose
    workers use the stand-ins; the stand-ins' logs."""
    from ray.cluster_utils import Cluster

    logs = {**fake_logs(tmp_path, monkeypatch), "verl_ray": tmp_path / "fake-verl-ray.jsonl"}
    env = {
        "FAKE_VERL_RAY_LOG": str(logs["verl_ray"]),
        "FAKE_VERL_RAY_NODE_GPUS": str(NODE_GPUS),
        "FAKE_VLLM_LOG": str(logs["vllm"]),
        "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
    }
    head = {"num_cpus": 2, "num_gpus": 2, "include_dashboard": False}
    nodes = Cluster(initialize_head=True, head_node_args=head)
    try:
        ray.init(address=nodes.address, runtime_env={"worker_process_setup_hook": HOOK,
                                                     "env_vars": env})  # fmt: skip
        yield logs
    finally:
        ray.shutdown()
        nodes.shutdown()


def starts(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_each_verl_run_starts_a_private_ray_with_its_tasks_gpu(
    tmp_path: Path, cluster: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    exp = experiment(rounds=1, designers=["uniform", "random"])
    assert verl_section(exp).n_gpus_per_node == 1
    cluster_gcs = ray.get_runtime_context().gcs_address
    records = RayExecutor().run(exp, plan(exp), tmp_path / "ray", RunOptions())
    assert ray.is_initialized()  # the test's cluster is used as it is and left up
    assert [(r.designer, r.seed) for r in records] == [("uniform", 0), ("random", 0)]

    seen = starts(cluster["verl_ray"])  # one trainer start per run (one round each)
    assert [s["ray_address"] for s in seen] == ["local", "local"]
    private = [s["private"] for s in seen]
    assert all(p["started_instance"] for p in private)
    assert not any(p["initialized_before"] or p["initialized_after"] for p in private)
    gcs = {p["gcs_address"] for p in private}
    assert len(gcs) == 2 and cluster_gcs not in gcs  # an instance of its own each, not the cluster
    for start, inside in zip(seen, private, strict=True):
        assert inside["task_runner"]["gcs_address"] == inside["gcs_address"]
        assert inside["task_runner"]["tokenizers_parallelism"] == "true"  # the PPO settings
        # of the node's four GPUs the instance has the one its task holds, and gives it on
        visible = start["cuda_visible_devices"]
        assert inside["resources"]["GPU"] == 1
        (worker,) = inside["workers"]
        assert worker["gpu_ids"] == [visible] and worker["cuda_visible_devices"] == visible
    assert sorted(s["cuda_visible_devices"] for s in seen) == ["0", "1"]  # one GPU each

    # the records are what the same stand-ins give a run in this process, without Ray
    monkeypatch.setattr(runtime_module, "VerlRuntime", stand_ins)
    local = [run_job(exp, job, tmp_path / "local", RunOptions(), None) for job in plan(exp)]
    assert [outcome(r) for r in records] == [outcome(r) for r in local]
