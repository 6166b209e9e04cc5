"""Each doctor check's ok, warn and fail paths, as pure functions of made-up facts."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.backends.cpu.doctor import cpu_disk_findings, torch_findings
from harness.backends.verl.doctor_gpu import (
    cuda_findings,
    gpu_count_findings,
    gpus_needed,
    memory_findings,
)
from harness.backends.verl.doctor_packages import attention_findings, package_findings
from harness.backends.verl.doctor_storage import disk_findings, hub_findings, model_findings
from harness.backends.verl.footprint import (
    ModelShape,
    ModelSize,
    checkpoint_footprint,
    disk_budget,
)
from harness.backends.verl.gpu_memory import GIB, memory_needs
from harness.backends.verl.settings import VerlSettings, verl_section
from harness.doctor import DriverFacts, Finding, PythonFacts, TorchFacts, exit_code, verdict
from harness.doctor.network import port_findings, ray_findings, ray_target
from harness.experiment import ExperimentConfig
from tests.harness.doctor_fakes import A10, CURRENT_PACKAGES, H100, PAPER_PACKAGES

PY = "/opt/verl/bin/python"
QWEN3_4B = ModelSize(
    "Qwen/Qwen3-4B",
    4_022_468_096,
    "index",
    Path("/c"),
    ModelShape(36, 8, 128, 40960),
    True,
    tokenizer=True,
)
CUDA_TORCH = TorchFacts("2.8.0+cu128", "12.8", True, (H100,) * 4)


def levels(findings: list[Finding]) -> list[str]:
    return [f.level for f in findings]


# --- CUDA and the driver --------------------------------------------------------------------


def test_cuda_ok_names_versions_and_driver() -> None:
    [f] = cuda_findings(DriverFacts((H100,), "570.86.15"), CUDA_TORCH, PY)
    assert f.level == "ok" and f.what == "CUDA 12.8 with torch 2.8.0+cu128, driver 570.86.15"


@pytest.mark.parametrize(
    ("driver", "torch", "says"),
    [
        (DriverFacts(error="nvidia-smi not found"), None, "no NVIDIA GPU driver here"),
        (DriverFacts((H100,), "570"), TorchFacts("2.8.0+cpu", None, False), "is a CPU build"),
        (DriverFacts((H100,), "470"), TorchFacts("2.8.0", "12.8", False), "sees no usable GPU"),
        (DriverFacts((H100,), "570"), TorchFacts("2.8.0", None, False, (), "OSError: libcuda"),
         "failed: OSError: libcuda"),
    ],
)  # fmt: skip
def test_cuda_fails_with_a_fix(driver: DriverFacts, torch: TorchFacts | None, says: str) -> None:
    [f] = cuda_findings(driver, torch, PY)
    assert f.level == "fail" and says in f.what and f.fix, f


# --- GPU count and memory -------------------------------------------------------------------


def test_gpu_count() -> None:
    settings = VerlSettings()
    needed, why = gpus_needed(settings, submits_jobs=False)
    assert (needed, why) == (4, "n_gpus_per_node 4 on this node")
    [good] = gpu_count_findings((H100,) * 8, needed, why)
    assert good.level == "ok" and good.what.startswith("4 of 8 GPU(s) used: NVIDIA H100")
    [short] = gpu_count_findings((H100,) * 2, needed, why)
    assert short.level == "fail" and short.what.startswith("2 GPU(s) visible; the recipe needs 4")
    assert "verl.n_gpus_per_node" in short.fix
    cluster, why = gpus_needed(settings, submits_jobs=True)
    assert cluster == 2 and "training runs on the Ray cluster" in why
    two_nodes = gpus_needed(VerlSettings(nnodes=2), submits_jobs=False)[1]
    assert "the other 1 node(s) are not checked" in two_nodes


def test_memory_of_the_paper_recipe_on_h100s() -> None:
    found = memory_findings((H100,) * 4, QWEN3_4B, VerlSettings(), needed=4, serving=True,
                            local_only=False)  # fmt: skip
    assert levels(found) == ["ok"] * 5, [f.line() for f in found]
    text = "\n".join(f.what for f in found)
    assert "rollouts (vLLM in verl): needs at least 4.2 GiB of 43.8 GiB (0.55 x 79.6 GiB)" in text
    assert "KV cache of one 6656-token sequence 0.5 GiB" in text
    assert "fp32 parameters 3.7 GiB + Adam moments 7.5 GiB over 4 GPU(s)" in text
    assert "training step (vLLM asleep): needs at least 15.0 GiB" in text
    assert "serving (vllm serve)" in text and "40960-token" in text
    assert all(f.what.endswith("(an estimate)") for f in found)


def test_memory_shortfalls_fail_where_certain_and_warn_where_estimated() -> None:
    on_a10s = memory_findings((A10,) * 4, QWEN3_4B, VerlSettings(), needed=4, serving=False,
                              local_only=False)  # fmt: skip
    beside = next(f for f in on_a10s if "beside vLLM" in f.what)
    assert beside.level == "warn" and "actor_optimizer_offload" in beside.fix
    two = VerlSettings(n_gpus_per_node=2, tensor_parallel=2)
    found = memory_findings((A10,) * 2, QWEN3_4B, two, needed=2, serving=False,
                            local_only=False)  # fmt: skip
    step = next(f for f in found if "training step" in f.what)
    assert step.level == "fail" and "needs at least 30.0 GiB of 22.5 GiB" in step.what
    tight = VerlSettings(gpu_memory_utilization=0.05)
    roll = memory_findings((A10,) * 4, QWEN3_4B, tight, needed=4, serving=False,
                           local_only=False)[0]  # fmt: skip
    assert roll.level == "fail" and "verl.gpu_memory_utilization" in roll.fix


def test_memory_on_a_node_that_only_evaluates_and_serves() -> None:
    found = memory_findings((H100,) * 2, QWEN3_4B, VerlSettings(), needed=2, serving=True,
                            local_only=True)  # fmt: skip
    assert [f.what.split(":")[0] for f in found] == ["evaluation (vLLM offline)",
                                                     "serving (vllm serve)"]  # fmt: skip


def test_memory_without_a_size_or_a_shape() -> None:
    unknown = ModelSize("Qwen/Qwen3-4B", None, "no local copy")
    [f] = memory_findings((H100,), unknown, VerlSettings(), needed=1, serving=False,
                          local_only=False)  # fmt: skip
    assert f.level == "warn" and "not estimated" in f.what and "--params" in f.fix
    given = ModelSize("Qwen/Qwen3-4B", 4_022_468_096, "as given")
    found = memory_findings((H100,) * 4, given, VerlSettings(), needed=4, serving=False,
                            local_only=False)  # fmt: skip
    assert found[-1].level == "warn" and "KV cache not counted" in found[-1].what
    assert memory_findings((), given, VerlSettings(), needed=4, serving=False,
                           local_only=False) == []  # fmt: skip


def test_memory_needs_by_hand() -> None:
    # 1e9 parameters, 2 layers x 2 KV heads x 64 dims, on 2 GPUs with TP 1
    needs = memory_needs(1_000_000_000, ModelShape(2, 2, 64, 1000), VerlSettings(
        n_gpus_per_node=2, tensor_parallel=1, max_prompt_length=100, max_response_length=100,
        strategy="fsdp2", ref_param_offload=False), serving=True)  # fmt: skip
    by = {n.phase: n for n in needs}
    kv = 2 * 2 * 2 * 64 * 2  # 1024 bytes a token
    assert by["rollouts (vLLM in verl)"].need == 2_000_000_000 + 200 * kv
    assert by["actor shards beside vLLM during rollouts"].need == (4 + 8 + 2) * 500_000_000
    assert by["training step (vLLM asleep)"].need == 16 * 500_000_000
    assert by["serving (vllm serve)"].need == 2_000_000_000 + 1000 * kv
    assert by["actor shards beside vLLM during rollouts"].available(100 * GIB) == 45 * GIB


# --- packages -------------------------------------------------------------------------------


def facts(**packages: str | None) -> PythonFacts:
    return PythonFacts(PY, {**PAPER_PACKAGES, **packages})


def test_the_paper_set_and_the_current_set_are_recognised() -> None:
    [paper] = package_findings(facts(), verl_here=True, ray_here=False)
    assert paper.level == "ok" and "the tested set of verl 0.6.1 (the gpu extra)" in paper.what
    current = PythonFacts(PY, dict(CURRENT_PACKAGES))
    [now] = package_findings(current, verl_here=True, ray_here=False)
    assert now.level == "ok" and "verl 0.9.1 (the gpu-current extra)" in now.what


def test_a_differing_package_warns_with_the_extra_that_fixes_it() -> None:
    [f] = package_findings(facts(vllm="0.11.2", numpy="2.1.0"), verl_here=True, ray_here=False)
    assert f.level == "warn"
    assert "vllm 0.11.2 (tested: ==0.11.0), numpy 2.1.0 (tested: <2)" in f.what
    assert f.fix == 'pip install -e ".[gpu]"'
    [mixed] = package_findings(PythonFacts(PY, {**CURRENT_PACKAGES, "torch": "2.8.0"}),
                               verl_here=True, ray_here=False)  # fmt: skip
    assert mixed.level == "warn" and mixed.fix == 'pip install -e ".[gpu-current]"'


@pytest.mark.parametrize("missing", ["vllm", "torch", "transformers"])
def test_an_essential_package_missing_fails(missing: str) -> None:
    [f] = package_findings(facts(**{missing: None}), verl_here=True, ray_here=False)
    assert f.level == "fail" and f"{missing} missing" in f.what


def test_verl_missing_unsupported_or_on_the_cluster() -> None:
    [gone] = package_findings(facts(verl=None), verl_here=True, ray_here=False)
    assert gone.level == "fail" and "verl is not installed" in gone.what
    assert '".[gpu]"' in gone.fix and '".[gpu-current]"' in gone.fix
    [odd] = package_findings(facts(verl="0.7.0"), verl_here=True, ray_here=False)
    assert odd.level == "fail" and "verl 0.7.0 is not supported" in odd.what
    cluster = package_findings(facts(verl=None, ray=None), verl_here=False, ray_here=True)
    assert levels(cluster) == ["fail", "ok"]
    assert "ray is not installed" in cluster[0].what and "ray[default]" in cluster[0].fix
    assert "verl runs on the Ray cluster" in cluster[1].what
    [broken] = package_findings(PythonFacts(PY, error="exit 1: boom"), verl_here=True,
                                ray_here=False)  # fmt: skip
    assert broken.level == "fail" and "commands.python" in broken.fix


def test_attention() -> None:
    ok = attention_findings("auto", facts(), (True, "flash_attn 2.8.3 on 4 GPU(s) sm_90+"))
    assert levels(ok) == ["ok"] and "flash_attention_2" in ok[0].what
    sdpa = attention_findings("sdpa", facts(**{"flash-attn": None}), None)
    assert levels(sdpa) == ["ok"]
    absent = attention_findings("auto", facts(**{"flash-attn": None}), None)
    assert levels(absent) == ["warn"] and "sdpa without padding removal" in absent[0].what
    assert absent[0].fix == "pip install flash-attn==2.8.3 --no-build-isolation"
    forced = attention_findings("flash_attention_2", facts(**{"flash-attn": None}), None)
    assert levels(forced) == ["fail"] and "verl.attention: sdpa" in forced[0].fix
    old_gpu = attention_findings("auto", facts(), (False, "GPU 0 is sm_75"))
    assert levels(old_gpu) == ["warn"] and "GPU 0 is sm_75" in old_gpu[0].what
    unknown = attention_findings("auto", facts(), (None, "cannot run the trainer's python"))
    assert levels(unknown) == ["warn"] and "not checked" in unknown[0].what
    cluster = attention_findings("auto", facts(), None, cluster=True)
    assert levels(cluster) == ["warn"] and "not probed from here" in cluster[0].what
    assert levels(attention_findings("sdpa", facts(), None, cluster=True)) == ["ok"]


def test_torch_for_the_cpu_backend() -> None:
    assert levels(torch_findings(PythonFacts(PY, {"torch": "2.13.0"}))) == ["ok"]
    assert levels(torch_findings(PythonFacts(PY, {"torch": None}))) == ["fail"]


# --- disk and the model ---------------------------------------------------------------------


def budget(**verl: object) -> tuple[ExperimentConfig, int]:
    e = ExperimentConfig.from_mapping({"backend": "verl", "policy": "Qwen/Qwen3-4B", "verl": verl})
    peak = disk_budget(e, checkpoint_footprint(1_000_000_000, verl_section(e))).peak
    return e, peak


def test_disk_against_the_budget() -> None:
    e, peak = budget()
    b = disk_budget(e, checkpoint_footprint(1_000_000_000, verl_section(e)))
    [roomy] = disk_findings(peak, Path("/runs"), b, QWEN3_4B)
    assert roomy.level == "ok" and roomy.what.startswith("24.0 GB free at /runs")
    [short] = disk_findings(peak - 1, Path("/runs"), b, QWEN3_4B)
    assert short.level == "fail" and "needs up to 24.0 GB" in short.what
    assert "keep_training_state" not in short.fix
    [resumed] = disk_findings(peak - 1, Path("/runs"), b, QWEN3_4B, resume=True)
    assert resumed.level == "warn" and "resuming" in resumed.what
    kept, _ = budget(keep_training_state=True)
    b = disk_budget(kept, checkpoint_footprint(1_000_000_000, verl_section(kept)))
    [f] = disk_findings(0, Path("/runs"), b, QWEN3_4B)
    assert f.level == "fail" and "verl.keep_training_state: false" in f.fix


def test_disk_with_an_unknown_size_or_no_measure() -> None:
    unknown = ModelSize("Qwen/Qwen3-4B", None, "no local copy")
    [f] = disk_findings(10**12, Path("/runs"), None, unknown)
    assert f.level == "warn" and "budget is unknown" in f.what
    assert "hf download Qwen/Qwen3-4B" in f.fix and "--params" in f.fix
    [g] = disk_findings(None, Path("/runs"), None, unknown)
    assert g.level == "warn" and "cannot be measured" in g.what


def test_disk_of_cpu_runs() -> None:
    assert levels(cpu_disk_findings(10**9, Path("/r"), 3)) == ["ok"]
    [f] = cpu_disk_findings(10**6, Path("/r"), 3)
    assert f.level == "fail" and "allow 150.0 MB" in f.what
    assert levels(cpu_disk_findings(None, Path("/r"), 3)) == ["warn"]


def test_the_model_on_disk() -> None:
    cache = Path("/hub")
    [cached] = model_findings(QWEN3_4B, offline=True, cache=cache, local=False)
    assert cached.level == "ok" and "loads without the hub" in cached.what
    absent = ModelSize("Qwen/Qwen3-4B", None, "no local copy")
    [offline] = model_findings(absent, offline=True, cache=cache, local=False)
    assert offline.level == "fail" and "HF_HUB_OFFLINE is set" in offline.what
    assert "not in the cache /hub" in offline.what
    assert offline.fix.startswith("hf download Qwen/Qwen3-4B")
    part = ModelSize("Qwen/Qwen3-4B", 1, "index", Path("/hub/x"), None, False, ("a.safetensors",),
                     tokenizer=True)  # fmt: skip
    [partial] = model_findings(part, offline=True, cache=cache, local=False)
    assert "incomplete in the cache /hub (missing a.safetensors)" in partial.what
    many = ModelSize("Qwen/Qwen3-4B", 1, "index", Path("/hub/x"), None, False, ("a", "b", "c"))
    [f] = model_findings(many, offline=True, cache=cache, local=False)
    assert "(missing a, b and 2 more)" in f.what
    assert model_findings(absent, offline=False, cache=cache, local=False) == []
    folder = ModelSize("/models/q", None, "no index", Path("/models/q"), None, False, ("b",))
    [local] = model_findings(folder, offline=False, cache=cache, local=True)
    assert local.level == "fail" and "the directory /models/q lacks b, a tokenizer" in local.what
    untokenized = ModelSize("Qwen/Qwen3-4B", 1, "headers", Path("/hub/x"), None, True)
    [f] = model_findings(untokenized, offline=True, cache=cache, local=False)
    assert f.level == "fail" and "(missing a tokenizer (tokenizer.json))" in f.what


@pytest.mark.parametrize(
    ("answer", "level", "says"),
    [(200, "warn", "will fetch it from https://huggingface.co"),
     (401, "fail", "a gated or private model"), (404, "fail", "no such model"),
     (502, "fail", "the hub answered 502"), ("timed out", "fail", "did not answer (timed out)")],
)  # fmt: skip
def test_the_hub(answer: int | str, level: str, says: str) -> None:
    [f] = hub_findings("Qwen/Qwen3-4B", "https://huggingface.co", answer, Path("/hub"))
    assert f.level == level and says in f.what and f.fix


# --- Ray and ports --------------------------------------------------------------------------


def test_ray_addresses_are_probed_the_way_they_are_used() -> None:
    assert ray_target("http://head:8265") == ("http", "http://head:8265/api/version", 0)
    assert ray_target("https://head") == ("http", "https://head/api/version", 0)
    assert ray_target("ray://head:10001") == ("tcp", "head", 10001)
    assert ray_target("ray://head") == ("tcp", "head", 10001)
    assert ray_target("10.0.0.1:6379") == ("tcp", "10.0.0.1", 6379)
    assert ray_target("head") == ("tcp", "head", 6379)
    assert ray_target("auto") is None and ray_target("http://head:port") is None


def test_ray_findings() -> None:
    assert levels(ray_findings("http://head:8265", 200)) == ["ok"]
    assert levels(ray_findings("ray://head:10001", None)) == ["ok"]
    [down] = ray_findings("http://head:8265", "connection refused")
    assert down.level == "fail" and "does not answer (connection refused)" in down.what
    assert "ray start --head" in down.fix
    [odd] = ray_findings("http://head:8265", 404)
    assert odd.level == "fail" and "answered 404" in odd.what
    [auto] = ray_findings("auto", None)
    assert auto.level == "warn" and "not probed" in auto.what


def test_ports() -> None:
    assert levels(port_findings(None, "127.0.0.1")) == ["ok"]
    [f] = port_findings("[Errno 13] Permission denied", "127.0.0.1")
    assert f.level == "fail" and "Permission denied" in f.what


# --- the report -----------------------------------------------------------------------------


def test_lines_verdict_and_exit_code() -> None:
    good = Finding("ok", "gpus", "4 of 4")
    soft = Finding("warn", "attention", "no flash-attn", "pip install flash-attn")
    hard = Finding("fail", "cuda", "no driver", "install it")
    assert good.line() == "OK    gpus: 4 of 4"
    assert soft.line() == "WARN  attention: no flash-attn; fix: pip install flash-attn"
    assert hard.problem() == "cuda: no driver; fix: install it"
    assert exit_code([good, soft]) == 0 and exit_code([good, hard]) == 1
    assert verdict([good], "x") == "1 ok, 0 warning(s), 0 failure(s): 'x' can run here"
    assert verdict([good, soft], "x").endswith("can run here; read the warnings")
    assert verdict([hard], "x").endswith("cannot run here until the failures are fixed")
