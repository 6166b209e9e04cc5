"""`harness doctor` and `diagnose` on faked machines: what is asked, what is said, the exit code."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.backends.cpu import CpuBackend, CpuLearnerSettings
from harness.backends.verl.runtime import VerlCommands, VerlRuntime
from harness.doctor import DriverFacts, Finding, TorchFacts, diagnose
from harness.experiment import ExperimentConfig
from harness.presets import resolve_preset
from harness_cli import app
from tests.harness.doctor_fakes import A10, FakeProbe, build_hf_cache, h100_node

runner = CliRunner()
KEYS = ("OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")
HUB = "https://huggingface.co/api/models/Qwen/Qwen3-4B"


@pytest.fixture(autouse=True)
def _no_provider_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in KEYS:
        monkeypatch.delenv(variable, raising=False)


def paper(*overrides: str) -> ExperimentConfig:
    return ExperimentConfig.load(resolve_preset("paper_qwen3_4b"), list(overrides))


def by_topic(findings: list[Finding]) -> dict[str, list[Finding]]:
    out: dict[str, list[Finding]] = {}
    for f in findings:
        out.setdefault(f.topic, []).append(f)
    return out


def test_the_paper_machine_passes_every_check(tmp_path: Path) -> None:
    build_hf_cache(tmp_path / "hub")
    probe = h100_node(tmp_path / "hub")
    findings = diagnose(paper(), probe, root=tmp_path / "runs")
    assert [f for f in findings if f.level != "ok"] == [], [f.line() for f in findings]
    topics = by_topic(findings)
    assert set(topics) == {"cuda", "gpus", "gpu memory", "packages", "attention", "model",
                           "disk", "ports", "designers"}  # fmt: skip
    assert len(topics["gpu memory"]) == 5  # self and base are served: the serving need counts
    assert not any(q.startswith(("http", "tcp")) for q in probe.asked), probe.asked


def test_the_cpu_backend_asks_nothing_of_gpus_or_the_network(tmp_path: Path) -> None:
    probe = FakeProbe(packages={"torch": "2.13.0"})
    quick = ExperimentConfig.load(resolve_preset("quick"))
    findings = diagnose(quick, probe, root=tmp_path)
    assert probe.asked == ["free_disk", "python cuda=False"]
    assert findings[0].what.endswith("the GPU, CUDA, memory, model and Ray checks do not apply")
    assert [f.topic for f in findings] == ["gpus", "packages", "disk", "reproducibility",
                                           "designers"]  # fmt: skip
    assert all(f.level == "ok" for f in findings)


def test_the_doctor_prints_the_learners_fingerprint(tmp_path: Path) -> None:
    """The line two people compare before they pool their runs: this process's fingerprint in
    the experiment's precision, and what it ran on."""
    quick = ExperimentConfig.load(resolve_preset("quick"))
    (line,) = [f.line() for f in diagnose(quick, FakeProbe(), root=tmp_path)
               if f.topic == "reproducibility"]  # fmt: skip
    machine = CpuBackend(CpuLearnerSettings(threads=1)).machine()
    assert f"learner fingerprint {machine.fingerprint} (fp32" in line
    assert machine.cpu_model in line and "compute the same numbers" in line
    bf16 = quick.model_copy(update={"precision": "bf16"})
    (other,) = [f.what for f in diagnose(bf16, FakeProbe(), root=tmp_path)
                if f.topic == "reproducibility"]  # fmt: skip
    assert "(bf16 (" in other and machine.fingerprint not in other


def test_a_machine_without_gpus_fails_each_gpu_check(tmp_path: Path) -> None:
    build_hf_cache(tmp_path)
    probe = h100_node(tmp_path, driver_facts=DriverFacts(error="nvidia-smi not found"),
                      torch=TorchFacts("2.8.0+cpu", None, False))  # fmt: skip
    topics = by_topic(diagnose(paper(), probe, root=tmp_path))
    assert [f.level for f in topics["cuda"]] == ["fail"]
    assert [f.level for f in topics["gpus"]] == ["fail"]
    assert "gpu memory" not in topics  # nothing to compare with
    assert "flash_attn" not in probe.asked  # no GPU to run it on
    assert topics["attention"][0].level == "warn"


def test_a_node_with_fewer_visible_gpus_than_the_recipe(tmp_path: Path) -> None:
    build_hf_cache(tmp_path)
    # nvidia-smi sees 4, CUDA_VISIBLE_DEVICES gives torch 2: the run gets torch's
    probe = h100_node(tmp_path, torch=TorchFacts("2.8.0", "12.8", True, (A10,) * 2))
    [f] = by_topic(diagnose(paper(), probe, root=tmp_path))["gpus"]
    assert f.level == "fail" and f.what.startswith("2 GPU(s) visible; the recipe needs 4")


def test_offline_without_the_model_fails_without_asking_the_hub(tmp_path: Path) -> None:
    probe = h100_node(tmp_path, env={"HF_HUB_CACHE": str(tmp_path), "HF_HUB_OFFLINE": "1"})
    # the preset's stated size taken away: nothing tells the model's size
    topics = by_topic(diagnose(paper("verl.model_params=null"), probe, root=tmp_path))
    [model] = topics["model"]
    assert model.level == "fail" and model.fix.startswith("hf download Qwen/Qwen3-4B")
    assert not any(q.startswith("http") for q in probe.asked)
    [disk] = topics["disk"]
    assert disk.level == "warn" and "budget is unknown" in disk.what
    assert topics["gpu memory"][0].level == "warn"


def test_online_without_the_model_asks_the_hub_and_a_given_size_counts(tmp_path: Path) -> None:
    probe = h100_node(tmp_path, http_answers={HUB: 200}, free=10**11)
    topics = by_topic(diagnose(paper(), probe, root=tmp_path, params=4_022_468_096))
    assert f"http {HUB}" in probe.asked
    assert topics["model"][0].level == "warn" and "will fetch it" in topics["model"][0].what
    # 100 GB against three runs' peak: two finished (3 x 16.1 GB each) and the last one in its
    # last round (2 x 16.1 GB kept + a 64.4 GB checkpoint)
    [disk] = topics["disk"]
    assert disk.level == "fail" and "needs up to 193.1 GB (final 144.8 GB" in disk.what
    mirror = h100_node(tmp_path, env={"HF_HUB_CACHE": str(tmp_path),
                                      "HF_ENDPOINT": "http://mirror.local/"})  # fmt: skip
    [down] = by_topic(diagnose(paper(), mirror, root=tmp_path))["model"]
    assert "http http://mirror.local/api/models/Qwen/Qwen3-4B" in mirror.asked
    assert down.level == "fail" and "did not answer (connection refused)" in down.what


def test_the_current_verl_line_is_recognised_and_sized(tmp_path: Path) -> None:
    build_hf_cache(tmp_path)
    current = {"verl": "0.9.1", "vllm": "0.24.0", "torch": "2.11.0", "transformers": "5.9.0",
               "numpy": "2.2.6"}  # fmt: skip
    probe = h100_node(tmp_path)
    probe.packages.update(current)
    [f] = by_topic(diagnose(paper(), probe, root=tmp_path))["packages"]
    assert f.level == "ok" and "gpu-current" in f.what


def test_ray_is_probed_only_with_an_address(tmp_path: Path) -> None:
    build_hf_cache(tmp_path)
    probe = h100_node(tmp_path, http_answers={"http://head:8265/api/version": 200})
    runtime = VerlRuntime(ray_address="http://head:8265")
    topics = by_topic(diagnose(paper(), probe, root=tmp_path, runtime=runtime))
    assert topics["ray"][0].level == "ok"
    assert "the Ray cluster's GPUs" not in topics["gpus"][0].what
    assert "training runs on the Ray cluster" in topics["gpus"][0].what
    assert "flash_attn" not in probe.asked  # the cluster's GPUs run training, not these
    gcs = h100_node(tmp_path, tcp_answer="timed out")
    found = diagnose(paper(), gcs, root=tmp_path, runtime=VerlRuntime(ray_address="head:6379"))
    assert by_topic(found)["ray"][0].level == "fail" and "tcp head:6379" in gcs.asked


def test_the_trainers_python_is_the_one_asked(tmp_path: Path) -> None:
    build_hf_cache(tmp_path)
    probe = h100_node(tmp_path, python_error="cannot run it: [Errno 2] No such file")
    runtime = VerlRuntime(commands=VerlCommands(python="/opt/verl/bin/python"))
    topics = by_topic(diagnose(paper(), probe, root=tmp_path, runtime=runtime))
    [f] = topics["packages"]
    assert f.level == "fail" and "cannot ask /opt/verl/bin/python" in f.what


def test_keys_of_the_named_designers_come_from_preflights_check(tmp_path: Path) -> None:
    build_hf_cache(tmp_path)
    findings = diagnose(paper("designers=[self, gpt]"), h100_node(tmp_path), root=tmp_path)
    [keys] = by_topic(findings)["designers"]
    assert keys.level == "fail" and "needs OPENAI_API_KEY in the environment" in keys.what
    skipped = diagnose(paper(), h100_node(tmp_path), root=tmp_path, skip=("designers", "ports"))
    assert {f.topic for f in skipped}.isdisjoint({"designers", "ports"})


# --- the command ------------------------------------------------------------------------------


def with_probe(monkeypatch: pytest.MonkeyPatch, probe: FakeProbe) -> None:
    monkeypatch.setattr("harness_cli.doctor.MachineProbe", lambda: probe)


def test_the_command_prints_one_line_per_finding_and_exits_0(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build_hf_cache(tmp_path)
    with_probe(monkeypatch, h100_node(tmp_path))
    result = runner.invoke(app, ["doctor", "--out", str(tmp_path / "runs")])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert all(line.startswith("OK    ") for line in lines[:-1]), lines
    assert lines[-1].endswith("'paper_qwen3_4b' can run here")
    assert any(line.startswith("OK    disk: ") and "needs up to" in line for line in lines)


def test_the_command_exits_1_on_a_failure_with_each_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build_hf_cache(tmp_path)
    probe = h100_node(tmp_path, driver_facts=DriverFacts(error="nvidia-smi not found"),
                      torch=TorchFacts("2.8.0+cpu", None, False))  # fmt: skip
    with_probe(monkeypatch, probe)
    result = runner.invoke(app, ["doctor", "paper_qwen3_4b", "--designers", "random",
                                 "--seeds", "2", "--set", "rounds=2"])  # fmt: skip
    assert result.exit_code == 1, result.output
    failing = [line for line in result.output.splitlines() if line.startswith("FAIL")]
    assert len(failing) == 2 and all("; fix: " in line for line in failing), failing
    assert "2 run(s)" not in result.output  # the budget's detail is the dry run's
    assert "cannot run here until the failures are fixed" in result.output


def test_warnings_alone_exit_0(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    build_hf_cache(tmp_path)
    probe = h100_node(tmp_path)
    probe.packages["flash-attn"] = None
    with_probe(monkeypatch, probe)
    result = runner.invoke(app, ["doctor", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "WARN  attention: flash-attn is not installed" in result.output
    assert result.output.splitlines()[-1].endswith("can run here; read the warnings")


def test_the_command_on_the_cpu_preset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with_probe(monkeypatch, FakeProbe(packages={"torch": "2.13.0"}))
    result = runner.invoke(app, ["doctor", "quick", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "the GPU, CUDA, memory, model and Ray checks do not apply" in result.output


@pytest.mark.parametrize(
    ("args", "says"),
    [(["doctor", "nonesuch"], "no preset"), (["doctor", "--designers", ","], "at least one"),
     (["doctor", "--seeds", "0"], "at least 1"), (["doctor", "--params", "0"], "--params"),
     (["doctor", "--set", "rounds=0"], "rounds")],
)  # fmt: skip
def test_bad_input_is_one_line_and_exit_2(args: list[str], says: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and says in result.output, result.output
    assert "Traceback" not in result.output
