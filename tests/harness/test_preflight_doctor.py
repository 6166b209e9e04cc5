"""`harness compare/run` run the doctor's machine checks before round 0: failures refuse the
comparison one line each, warnings are printed and do not stop it, a dry run skips them."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.doctor import DriverFacts, TorchFacts
from harness.experiment import ExperimentConfig
from harness.preflight import PreflightFailed, preflight
from harness.presets import resolve_preset
from harness_cli import app
from tests.harness.doctor_fakes import FakeProbe, build_hf_cache, h100_node

runner = CliRunner()
TINY = ["--set", "rounds=1", "--set", "samples_per_round=40", "--set", "benchmarks=[validation]",
        "--set", "best_of=1", "--quiet"]  # fmt: skip


def paper() -> ExperimentConfig:
    return ExperimentConfig.load(resolve_preset("paper_qwen3_4b"), ["designers=[random]"])


def test_a_verl_comparison_on_this_gpu_less_machine_is_refused_with_the_doctors_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real probe, but offline with an empty cache, so no test reaches the network."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("PATH", str(tmp_path))  # no nvidia-smi, whatever this machine has
    out = tmp_path / "runs"
    result = runner.invoke(app, ["compare", "--preset", "paper_qwen3_4b", "--designers",
                                 "random", "--out", str(out)])  # fmt: skip
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    text = "\n".join(errors)
    assert "error: cuda: no NVIDIA GPU driver here (nvidia-smi not found); fix: " in text
    assert "error: gpus: 0 GPU(s) visible; the recipe needs 4" in text
    assert "error: model: HF_HUB_OFFLINE is set and Qwen/Qwen3-4B is not in the cache" in text
    assert "fix: hf download Qwen/Qwen3-4B" in text
    assert not out.exists() or not any(out.iterdir())


@pytest.fixture
def installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """verl and vLLM installed as the fake machine says (the backend's own import check would
    look at this environment instead)."""
    monkeypatch.setattr("harness.preflight.check_backend", lambda *args: None)


@pytest.mark.usefixtures("installed")
def test_failures_are_problems_and_warnings_are_passed_on(tmp_path: Path) -> None:
    build_hf_cache(tmp_path)
    probe = h100_node(tmp_path, driver_facts=DriverFacts(error="nvidia-smi not found"),
                      torch=TorchFacts("2.8.0+cpu", None, False))  # fmt: skip
    probe.packages["flash-attn"] = None
    warned: list[str] = []
    with pytest.raises(PreflightFailed) as failed:
        preflight(paper(), tmp_path / "runs", probe=probe, on_warning=warned.append)
    assert [p.split(":")[0] for p in failed.value.problems] == ["cuda", "gpus"]
    assert warned == [
        "attention: flash-attn is not installed: verl uses sdpa without padding "
        "removal (slower); fix: pip install flash-attn==2.8.3 --no-build-isolation"
    ]


@pytest.mark.usefixtures("installed")
def test_warnings_alone_let_the_comparison_start(tmp_path: Path) -> None:
    build_hf_cache(tmp_path)
    probe = h100_node(tmp_path, free=None)
    warned: list[str] = []
    preflight(paper(), tmp_path / "runs", probe=probe, on_warning=warned.append)
    assert warned == [f"disk: free space at {tmp_path / 'runs'} cannot be measured; fix: "
                      "check it with df -H"]  # fmt: skip


def test_a_failed_package_check_is_not_said_twice(tmp_path: Path) -> None:
    """Where this environment lacks verl (the backend's own check), the doctor's package line
    is left out; its other checks still run."""
    from harness.backends.base import BackendUnavailable

    def missing(*args: object) -> None:
        raise BackendUnavailable("the verl backend needs verl, vllm, which this environment lacks")

    build_hf_cache(tmp_path)
    probe = h100_node(tmp_path, packages={})
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("harness.preflight.check_backend", missing)
        with pytest.raises(PreflightFailed) as failed:
            preflight(paper(), tmp_path / "runs", probe=probe, on_warning=lambda line: None)
    assert failed.value.problems == [
        "the verl backend needs verl, vllm, which this environment lacks"
    ]


def test_a_dry_run_asks_the_machine_nothing(tmp_path: Path) -> None:
    probe = FakeProbe()
    preflight(paper(), tmp_path, dry_run=True, probe=probe)
    assert probe.asked == []


@pytest.mark.usefixtures("installed")
def test_runs_on_other_machines_are_not_judged_by_this_one(tmp_path: Path) -> None:
    probe = FakeProbe(driver_facts=DriverFacts(error="nvidia-smi not found"))
    preflight(paper(), tmp_path / "runs", probe=probe, runs_here=False)
    assert probe.asked == []


def test_a_cpu_comparison_asks_no_gpu_and_no_network(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    probe = FakeProbe(packages={"torch": "2.13.0"})
    monkeypatch.setattr("harness.preflight.machine_probe", lambda: probe)
    result = runner.invoke(app, ["compare", "--designers", "random", "--out",
                                 str(tmp_path / "runs"), *TINY])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert probe.asked == ["free_disk", "python cuda=False"]


def test_a_cpu_comparison_without_disk_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("harness.preflight.machine_probe", lambda: FakeProbe(free=1000))
    result = runner.invoke(app, ["compare", "--designers", "random", "--out",
                                 str(tmp_path / "runs"), *TINY])  # fmt: skip
    assert result.exit_code == 2
    assert "error: disk: 1.0 kB free at" in result.output


@pytest.mark.usefixtures("installed")
def test_the_disk_peak_counts_the_runs_that_go_at_once(tmp_path: Path) -> None:
    """The fake cache's model: three runs one at a time need up to 18.7 GB (two finished, one
    in its last round); with three workers all three are in their last round at once."""
    from harness.compare import compare
    from harness.executors import LocalExecutor

    build_hf_cache(tmp_path)
    experiment = ExperimentConfig.load(resolve_preset("paper_qwen3_4b"),
                                       ["designers=[random,uniform,hand]"])  # fmt: skip
    probe = h100_node(tmp_path, free=25 * 10**9)
    preflight(experiment, tmp_path / "runs", probe=probe, on_warning=lambda line: None)
    with pytest.MonkeyPatch.context() as patch, pytest.raises(PreflightFailed) as failed:
        patch.setattr("harness.preflight.machine_probe", lambda: probe)
        compare(experiment, tmp_path / "runs", executor=LocalExecutor(workers=3))
    [disk] = [p for p in failed.value.problems if p.startswith("disk:")]
    assert "25.0 GB free" in disk and "needs up to 28.1 GB" in disk, disk
