"""The verl backend's orchestration, with stand-ins at the process boundary (no GPU, no verl).

`fake_verl.py` writes what ``verl.trainer.main_ppo`` writes (checkpoints, the file logger's
lines, rollout dumps; it calls the real reward entry point), `fake_vllm.py` answers generation
requests and serves an OpenAI-compatible app like ``vllm serve``, and `fake_ray.py` plays
``ray job submit``/``stop``. The backend reaches them only through `VerlCommands`, exactly as it
reaches the real programs.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from designers import DesignerNotReady
from envdesign_common.field_errors import ConfigError
from harness.backends import BackendUnavailable, ServingBackend, serving
from harness.backends.factory import make_backend
from harness.backends.processes import LaunchFailed
from harness.backends.verl.backend import STATE_FILE, VerlBackend
from harness.backends.verl.curves import RoundCurves
from harness.backends.verl.generate import GenerateRequest, answer_all, read_answers
from harness.backends.verl.runtime import PPO_ENV, VerlCommands, VerlRuntime
from harness.experiment import ExperimentConfig
from harness.loop import run_designer
from harness.run_dir import RunDir
from run_records import TrainStep
from tests.designers.openai_server import FAST
from tests.harness.verl.cases import MAPF_FEED

HERE = Path(__file__).resolve().parent
FAKE_VERL, FAKE_VLLM, FAKE_RAY = HERE / "fake_verl.py", HERE / "fake_vllm.py", HERE / "fake_ray.py"
POLICY = "Org/Tiny-Qwen3"

SMALL = {
    "name": "tiny-verl",
    "backend": "verl",
    "policy": POLICY,
    "rounds": 2,
    "samples_per_round": 16,
    "epochs_per_round": 2,
    "grpo": {"group_size": 2, "learning_rate": 2e-6, "kl_coef": 1e-3},
    "validation": "validation",
    "benchmarks": ["validation"],
    "best_of": 2,
    "designer_options": {"self": dict(FAST), "base": dict(FAST)},
    "verl": {
        "n_gpus_per_node": 1,
        "tensor_parallel": 1,
        "train_batch_size": 4,
        "ppo_mini_batch_size": 4,
        "micro_batch_size_per_gpu": 1,
        "log_prob_micro_batch_size_per_gpu": 1,
    },
}
STEPS = 8  # 16 rows / 4 prompts per step = 4 steps per epoch, x 2 epochs


def experiment(**changes: Any) -> ExperimentConfig:
    return ExperimentConfig.from_mapping({**SMALL, **changes})


def runtime(**changes: Any) -> VerlRuntime:
    python = sys.executable
    commands = VerlCommands(
        python=python,
        trainer=(str(FAKE_VERL),),
        generator=(str(FAKE_VLLM), "generate"),
        server=(str(FAKE_VLLM), "serve"),
        ray=(str(FAKE_RAY),),
        job_python=python,
        requires=(),
    )
    # the stand-ins play verl 0.6.1 on a machine without flash-attn (so nothing is probed)
    machine: dict[str, Any] = {"verl_version": "0.6.1", "flash_attn": False}
    return VerlRuntime(commands=commands, poll_s=0.05, stop_grace_s=5.0, **{**machine, **changes})


@pytest.fixture
def logs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    return fake_logs(tmp_path, monkeypatch)


def fake_logs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """The stand-ins' call logs, and none of their scripted failures."""
    paths = {"vllm": tmp_path / "fake-vllm.jsonl", "ray": tmp_path / "fake-ray.jsonl"}
    monkeypatch.setenv("FAKE_VLLM_LOG", str(paths["vllm"]))
    monkeypatch.setenv("FAKE_RAY_LOG", str(paths["ray"]))
    for name in ("FAKE_VERL_CRASH_AT", "FAKE_VERL_CRASH_ALWAYS", "FAKE_VERL_SKIP_DUMP_AT",
                 "FAKE_VLLM_SERVE_FAIL"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    return paths


def entries(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line]


def calls(backend: VerlBackend, n: int) -> list[dict[str, Any]]:
    return entries(backend.round_dir(n) / "checkpoints" / "fake_verl_calls.jsonl")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


# --- the whole loop -------------------------------------------------------------------------


def test_two_rounds_of_the_self_designer_end_to_end(tmp_path: Path, logs: dict[str, Path]) -> None:
    pytest.importorskip("litellm", reason="the self designer asks its model through LiteLLM")
    # every evaluation by vLLM (test_validation_dump: the rounds' from verl's own validation)
    exp = experiment(verl={**SMALL["verl"], "validate_in_verl": False})  # type: ignore[dict-item]
    run = RunDir(tmp_path / "runs", exp, "self", 0)
    backend = VerlBackend(exp, run.path, runtime())
    assert isinstance(backend, ServingBackend)
    seen: list[TrainStep] = []

    class Steps:
        def phase(self, *args: Any) -> None: ...
        def round_done(self, *args: Any) -> None: ...
        def close(self) -> None: ...
        def step(self, n: int, step: TrainStep) -> None:
            seen.append(step)

    record = run_designer(exp, "self", 0, backend, run, observers=[Steps()], workers=1)

    # training: round 0 from the policy with weight 0, round 1 from round 0's merged model
    first, second = calls(backend, 0), calls(backend, 1)
    assert [c["start"] for c in first + second] == [1, 1]
    assert first[0]["model"] == POLICY and first[0]["valid_rate"] == 0.0
    model0 = backend.round_dir(0) / "checkpoints" / f"global_step_{STEPS}" / "actor" / "huggingface"
    assert second[0]["model"] == str(model0)
    assert 0.0 < second[0]["valid_rate"] < 1.0  # the running valid rate after round 0
    assert first[0]["env"]["NCCL_CUMEM_ENABLE"] == PPO_ENV["NCCL_CUMEM_ENABLE"] == "0"
    assert first[0]["env"]["RAY_ADDRESS"] == "local"
    assert "file" in first[0]["logger"]

    # curves: every step once, valid rate from the rollout dumps (even rows are optimal plans)
    assert [s.step for s in seen] == list(range(2 * STEPS))
    assert all(s.valid_rate == 0.5 and s.reward > 0 for s in seen)
    assert all(len(r.validation.per_size) for r in record.rounds)
    assert len(run.curves(1).read_text().splitlines()) == STEPS
    assert not list((backend.round_dir(0) / "rollouts").glob("*.jsonl"))  # read, then deleted

    # the checkpoint points at the round's model, and a fresh backend continues from it
    state = json.loads((run.checkpoint(0) / STATE_FILE).read_text())
    assert (run.checkpoint(0) / state["model"]).resolve() == model0.resolve()
    assert (run.checkpoint(0) / "hf_model" / "config.json").is_file()
    again = VerlBackend(exp, run.path, runtime())
    again.load(run.checkpoint(1))
    assert again.rounds_done == 2 and again.steps_done == 2 * STEPS
    assert again.current_model.endswith(
        f"round-001/checkpoints/global_step_{STEPS}/actor/huggingface"
    )

    # evaluation: each round's greedy answers from that round's model, scored by the verifier
    requests = [e["generate"] for e in entries(logs["vllm"]) if "generate" in e]
    assert [r["model"] for r in requests[:2]] == [str(model0), again.current_model]
    assert requests[0]["temperature"] == 0.0 and requests[0]["n"] == 1
    assert {(r["n"], r["temperature"]) for r in requests[2:]} == {(1, 0.0), (2, 1.0)}
    valid = record.rounds[0].validation.overall.valid_rate
    assert 0.4 < valid < 0.6  # the stand-in answers instances with an even id optimally
    assert record.suites["validation"].best_of.overall.valid_rate == valid
    assert not list((backend.root / "generate").glob("*"))  # request files removed once read

    # design: the self designer asked the served round-0 model through LiteLLM, then it stopped
    proposal = record.rounds[0].proposal
    assert proposal is not None and not proposal.kept_previous, proposal.failures
    assert proposal.transcript[0].model == f"hosted_vllm/{Path(POLICY).name}-rl-round0"
    assert record.rounds[1].config == proposal.config
    served = [e for e in entries(logs["vllm"]) if "serve" in e]
    assert [e["serve"] for e in served] == [str(model0)]
    assert not alive(served[0]["pid"])


def test_a_designer_that_asks_the_served_model_needs_a_serving_backend(tmp_path: Path) -> None:
    exp = ExperimentConfig.from_mapping({"rounds": 1, "samples_per_round": 20,
                                         "benchmarks": ["validation"]})  # fmt: skip
    run = RunDir(tmp_path, exp, "self", 0)
    with pytest.raises(DesignerNotReady, match="serves none"):
        run_designer(exp, "self", 0, make_backend(exp, threads=1), run, workers=1)
    assert not run.round_path(0).exists()  # refused before any training


def test_make_backend_names_the_extra_when_verl_or_vllm_is_missing(tmp_path: Path) -> None:
    if importlib.util.find_spec("verl") and importlib.util.find_spec("vllm"):
        pytest.skip("verl and vLLM are both installed here")
    with pytest.raises(BackendUnavailable, match=r"\[gpu\]"):
        make_backend(experiment(), workdir=tmp_path)
    with pytest.raises(ConfigError, match="policy 'mlp'"):  # refused with the config itself
        experiment(policy="mlp")


# --- within a round: crashes and resumes ----------------------------------------------------


def test_a_crashed_attempt_resumes_from_the_rounds_latest_checkpoint(
    tmp_path: Path, logs: dict[str, Path], monkeypatch: pytest.MonkeyPatch, data: Any
) -> None:
    monkeypatch.setenv("FAKE_VERL_CRASH_AT", "6")  # after the checkpoint of step 4
    backend = VerlBackend(experiment(), tmp_path / "run" / "self" / "seed-0", runtime())
    reported: list[int] = []
    training = backend.train_round(
        data, epochs=2, seed=3, on_step=lambda s: reported.append(s.step)
    )
    assert [c["start"] for c in calls(backend, 0)] == [1, 5]
    assert reported == list(range(STEPS))  # steps 5 and 6 were redone, reported once
    assert [s.step for s in training.steps] == list(range(STEPS))
    assert len(list((backend.round_dir(0) / "metrics").glob("attempt-*.jsonl"))) == 2
    assert "crashing at step 6" in (backend.round_dir(0) / "train.log").read_text()
    assert backend.rounds_done == 1 and backend.running.value > 0


def test_a_step_without_its_rollout_dump_is_marked_and_shown_with_the_round(
    tmp_path: Path, logs: dict[str, Path], monkeypatch: pytest.MonkeyPatch, data: Any
) -> None:
    monkeypatch.setenv("FAKE_VERL_SKIP_DUMP_AT", "3")
    backend = VerlBackend(experiment(), tmp_path / "run" / "self" / "seed-0", runtime())
    training = backend.train_round(data, epochs=2, seed=3)
    assert len(training.steps) == STEPS
    rows = entries(backend.round_dir(0) / "steps.jsonl")
    estimated = {row["step"] for row in rows if row["valid_rate_estimated"]}
    assert estimated == {2}  # verl's step 3 is the round's third step, numbered from 0
    [note] = backend.take_overhead().notes
    assert note == (f"round 0: 1 of {STEPS} step(s) took the running valid rate (their rollout "
                    "dumps were missing or unfinished): steps [2]")  # fmt: skip


def test_an_attempt_without_progress_is_not_retried_again(
    tmp_path: Path, logs: dict[str, Path], monkeypatch: pytest.MonkeyPatch, data: Any
) -> None:
    monkeypatch.setenv("FAKE_VERL_CRASH_AT", "2")
    monkeypatch.setenv("FAKE_VERL_CRASH_ALWAYS", "1")
    backend = VerlBackend(experiment(), tmp_path / "run" / "self" / "seed-0", runtime())
    with pytest.raises(LaunchFailed, match=r"(?s)attempt 2.*exited with code 3.*crashing at step"):
        backend.train_round(data, epochs=2, seed=3)
    assert [c["start"] for c in calls(backend, 0)] == [1, 1]


def test_a_new_harness_process_continues_a_round_and_its_curves(
    tmp_path: Path, logs: dict[str, Path], monkeypatch: pytest.MonkeyPatch, data: Any
) -> None:
    workdir = tmp_path / "run" / "self" / "seed-0"
    monkeypatch.setenv("FAKE_VERL_CRASH_AT", "6")
    monkeypatch.setenv("FAKE_VERL_CRASH_ALWAYS", "1")
    with pytest.raises(LaunchFailed):
        VerlBackend(experiment(), workdir, runtime(train_attempts=1)).train_round(
            data, epochs=2, seed=3
        )
    monkeypatch.delenv("FAKE_VERL_CRASH_ALWAYS")
    monkeypatch.delenv("FAKE_VERL_CRASH_AT")
    backend = VerlBackend(experiment(), workdir, runtime())  # as after `--resume`
    reported: list[int] = []
    backend.train_round(data, epochs=2, seed=3, on_step=lambda s: reported.append(s.step))
    assert [c["start"] for c in calls(backend, 0)] == [1, 5]
    assert reported == list(range(STEPS))  # steps 1-6 replayed from steps.jsonl, 7-8 new
    assert (backend.round_dir(0) / "metrics" / "attempt-2.jsonl").exists()


def test_rounds_are_submitted_as_ray_jobs_and_stopped_on_interrupt(
    tmp_path: Path, logs: dict[str, Path], data: Any
) -> None:
    rt = runtime(ray_address="http://head:8265")
    backend = VerlBackend(experiment(), tmp_path / "run" / "self" / "seed-0", rt)
    backend.train_round(data, epochs=2, seed=3)
    (submit,) = entries(logs["ray"])
    assert submit["address"] == "http://head:8265"
    assert submit["submit"].startswith("envdesign-self-seed-0-r000-")
    assert submit["env_vars"]["NCCL_CUMEM_ENABLE"] == "0"
    assert "VERL_FILE_LOGGER_PATH" in submit["env_vars"]
    assert calls(backend, 0)[0]["env"]["RAY_ADDRESS"] != "local"  # the cluster's, not private

    def interrupt(step: TrainStep) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        backend.train_round(data, epochs=2, seed=4, on_step=interrupt)
    stops = [e for e in entries(logs["ray"]) if "stop" in e]
    submits = [e for e in entries(logs["ray"]) if "submit" in e]
    assert [s["stop"] for s in stops] == [submits[-1]["submit"]]


# --- serving ----------------------------------------------------------------------------------


def _health(url: str) -> int:
    with urllib.request.urlopen(url.removesuffix("/v1") + "/health", timeout=5) as r:
        return int(r.status)


def test_a_server_is_healthy_inside_the_block_and_stopped_after_an_error(
    tmp_path: Path, logs: dict[str, Path]
) -> None:
    backend = VerlBackend(experiment(), tmp_path / "run" / "base" / "seed-0", runtime())
    with pytest.raises(RuntimeError, match="designer broke"), serving(backend, ["base"]) as served:
        eps = served.endpoints
        assert eps["base"].model == POLICY and _health(eps["base"].base_url) == 200
        assert backend.endpoint("base") == eps["base"]  # one server per model
        raise RuntimeError("designer broke")
    (started,) = [e for e in entries(logs["vllm"]) if "serve" in e]
    assert started["serve"] == POLICY and not alive(started["pid"])
    assert not backend._servers


def test_a_server_that_fails_or_hangs_is_reported_and_stopped(
    tmp_path: Path, logs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    backend = VerlBackend(experiment(), tmp_path / "run" / "self" / "seed-0", runtime())
    monkeypatch.setenv("FAKE_VLLM_SERVE_FAIL", "1")
    with pytest.raises(LaunchFailed, match=r"(?s)exited with code 1.*CUDA out of memory"):
        backend.endpoint("policy")
    monkeypatch.delenv("FAKE_VLLM_SERVE_FAIL")
    monkeypatch.setenv("FAKE_VLLM_SERVE_DELAY", "30")
    slow = VerlBackend(experiment(), tmp_path / "run" / "self" / "seed-0",
                       runtime(serve_timeout_s=1.0))  # fmt: skip
    with pytest.raises(LaunchFailed, match="not ready after 1s"):
        slow.endpoint("policy")
    assert not slow._servers


# --- pieces -----------------------------------------------------------------------------------


def test_curves_read_only_whole_lines_and_never_hold_a_nan(tmp_path: Path) -> None:
    curves = RoundCurves(tmp_path, MAPF_FEED, steps_before=10, running=lambda: 0.25)
    curves.metrics_dir.mkdir()
    curves.rollout_dir.mkdir()
    (curves.rollout_dir / "1.jsonl").write_text('{"valid": 1.0}\n{"valid": 0.0}\n')
    line = json.dumps({"step": 1, "data": {"critic/score/mean": 0.7, "actor/pg_loss": 0.1}})
    with open(curves.metrics_file(1), "w") as f:
        f.write(line + "\n" + '{"step": 2, "da')  # the file logger is mid-line
    (step,) = curves.poll(1)
    assert (step.step, step.valid_rate, step.reward, step.kl, step.loss) == (10, 0.5, 0.7, 0.0, 0.1)
    with open(curves.metrics_file(1), "a") as f:
        f.write('ta": {"critic/score/mean": NaN}}\n')
    (second,) = curves.poll(1)
    assert second.valid_rate == 0.25 and second.reward == 0.0  # no dump: the running rate
    replayed = RoundCurves(tmp_path, MAPF_FEED, steps_before=10, running=lambda: 0).replay()
    assert [s.step for s in replayed] == [10, 11]


def test_generation_files_round_trip_and_mismatches_are_named(tmp_path: Path) -> None:
    from harness.backends.verl.generate import write_prompts

    request = GenerateRequest(model="m", prompts=tmp_path / "p.jsonl", answers=tmp_path / "a.jsonl",
                              n=2, temperature=1.0, top_p=1.0, max_tokens=8, seed=0,
                              tensor_parallel=1, gpu_memory_utilization=0.5)  # fmt: skip
    write_prompts(request.prompts, [("a", [{"role": "user", "content": "x"}]), ("b", [])])

    def echo(r: GenerateRequest) -> Callable[[list[Any]], list[list[str]]]:
        return lambda convs: [[str(len(c))] * r.n for c in convs]

    timings = answer_all(request, echo)
    assert timings.prompts == 2 and request.timings is None
    assert read_answers(request.answers, ["a", "b"], 2) == [["1", "1"], ["0", "0"]]
    with pytest.raises(ValueError, match="other prompts"):
        read_answers(request.answers, ["b", "a"], 2)
    with pytest.raises(ValueError, match="lack 3 answers"):
        read_answers(request.answers, ["a", "b"], 3)


def test_the_ray_executor_holds_a_verl_runs_gpus_on_one_node() -> None:
    pytest.importorskip("ray")
    from harness.backends.spec import Resources
    from harness.executors import ExecutorUnavailable
    from harness.executors.ray import RayExecutor

    assert RayExecutor().resources(experiment()) == Resources(cpus=1, gpus=1)
    assert RayExecutor(gpus_per_run=2).resources(experiment()).gpus == 2
    two_nodes = experiment(verl={**SMALL["verl"], "nnodes": 2})  # type: ignore[dict-item]
    with pytest.raises(ExecutorUnavailable, match="ray-address"):
        RayExecutor().resources(two_nodes)


def test_a_relative_run_directory_gives_absolute_paths() -> None:
    """verl runs in the round's directory, so nothing it is given may be relative."""
    backend = VerlBackend(experiment(), Path("runs/tiny-verl/self/seed-0"), runtime())
    inputs = backend.round_inputs(0, 16, seed=0)
    assert inputs.train_files.is_absolute() and inputs.checkpoint_dir.is_absolute()
    launch, _ = backend.train_launch(inputs, backend.round_dir(0) / "metrics" / "attempt-1.jsonl")
    assert launch.cwd is not None and launch.cwd.is_absolute()
