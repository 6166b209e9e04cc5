"""The trl backend's parts that need no model: settings, reward, curves, checksums, retention,
the server's command and the design step a server that will not start turns into."""

from __future__ import annotations

import socket
import sys
from pathlib import Path
from typing import Any, Literal

import pytest

from designers import Endpoint, create_designer
from envdesign_common import RunningValidRate
from envdesign_common.field_errors import ConfigError
from harness.backends import Served, ServerUnavailable, serving
from harness.backends.processes import Launch
from harness.backends.registry import backend_spec
from harness.backends.servers import ModelServer, ServerFailed, free_port
from harness.backends.trl.checksums import directory_sha256
from harness.backends.trl.curves import train_step
from harness.backends.trl.footprint import disk_bytes, memory_plan
from harness.backends.trl.loading import Placement
from harness.backends.trl.retention import prune_rounds
from harness.backends.trl.reward import (
    SCORE_METRIC,
    TOKENS_METRIC,
    VALID_METRIC,
    WEIGHT_METRIC,
    RoundReward,
)
from harness.backends.trl.serving import serve_argv
from harness.backends.trl.settings import TrlSettings
from harness.experiment import ExperimentConfig
from harness.loop import design, shared_start
from mapf_env import RewardConfig, accuracy_weight, load_suite, reference_answer, reward
from tasks.mapf_frozenlake import MapfFrozenLake, MapfSettings
from tasks.reasoning_gym import ReasoningGym

CPU = Placement(device="cpu", dtype="float32")


def trl_experiment(**trl: Any) -> ExperimentConfig:
    return ExperimentConfig.from_mapping(
        {"backend": "trl", "policy": "HuggingFaceTB/SmolLM2-135M-Instruct", "trl": trl}
    )


# --- settings -------------------------------------------------------------------------------


def test_the_section_is_validated_through_the_backend_and_refuses_what_cannot_run() -> None:
    assert trl_experiment().settings_of(TrlSettings) == TrlSettings()
    with pytest.raises(ConfigError, match="trl: vLLM needs a CUDA GPU: device cpu takes"):
        trl_experiment(device="cpu", engine="vllm")
    with pytest.raises(ConfigError, match=r"trl\.micro_batch_sizes"):
        trl_experiment(micro_batch_sizes=3)  # a typo is an unknown field, not a default
    with pytest.raises(ValueError, match=r"micro_batch_size \(3\) must divide"):
        TrlSettings(prompts_per_step=2, micro_batch_size=3).micro_batches(4)
    assert TrlSettings(prompts_per_step=2, micro_batch_size=4).micro_batches(4) == 2


def test_the_cpu_learners_policy_and_precision_are_refused_in_one_line() -> None:
    problems = backend_spec("trl").config_problems
    assert "CPU learner's network" in problems("mlp", "fp32")[0]
    assert "trl.dtype" in problems("Qwen/Qwen3-0.6B", "bf16")[0]
    assert problems("Qwen/Qwen3-0.6B", "fp32") == []


# --- reward and curves ------------------------------------------------------------------------


def test_the_reward_is_the_tasks_with_the_running_valid_rate_as_its_state() -> None:
    items = [item.instance for item in load_suite("validation").items[:2]]
    solved = reference_answer(items[0])
    answers = [solved, "no plan"]
    ids = [[0] * 40, [0] * 7]
    config = RewardConfig(w_min=0.4)
    task = MapfFrozenLake(MapfSettings(reward=config))  # the coefficients are the task's
    running = RunningValidRate(alpha=0.5)
    logged: dict[str, float] = {}
    got = RoundReward(task, items, running)(
        prompts=["p", "p"], completions=[[{"role": "assistant", "content": a}] for a in answers],
        completion_ids=ids, item=[0, 1], log_metric=logged.__setitem__,
    )  # fmt: skip
    want = [reward(items[0], solved, config, 0.0, n_tokens=40).total,
            reward(items[1], "no plan", config, 0.0, n_tokens=7).total]  # fmt: skip
    assert got == want and got[0] > got[1]
    assert logged[VALID_METRIC] == 0.5 and running.value == 0.25  # folded in after scoring
    assert logged["task/optimal_rate/soc"] == logged["task/optimal_rate/makespan"] == 0.5
    assert (logged[TOKENS_METRIC], logged[WEIGHT_METRIC]) == (23.5, accuracy_weight(0.0, config))
    again = RoundReward(task, items, running)(prompts=["p"], completions=[solved],
                                              completion_ids=[[0]], item=[0])  # fmt: skip
    assert again[0] == reward(items[0], solved, config, 0.25, n_tokens=1).total
    rate = running.value  # 0.625: the valid answer folded in
    chars = RoundReward(task, items, running, count_tokens=False)(
        prompts=["p"], completions=[solved], completion_ids=[[0]], item=[0])  # fmt: skip
    assert chars[0] == reward(items[0], solved, config, rate).total  # measured by its text


def test_the_reward_of_another_task_is_its_own_score(reasoning_gym_task: ReasoningGym) -> None:
    task = reasoning_gym_task
    items = [it.item for it in task.suite(task.validation_suite).items[:3]]
    right = task.reference_answer(items[1])
    assert right is not None
    logged: dict[str, float] = {}
    answers = ["", right, "<answer>?</answer>"]
    got = RoundReward(task, items, RunningValidRate())(
        prompts=["p"] * 3, completions=answers,
        completion_ids=[[0], [0, 0], [0]], item=[0, 1, 2], log_metric=logged.__setitem__,
    )  # fmt: skip
    assert got == [task.judge(it, a).score for it, a in zip(items, answers, strict=True)]
    assert got[1] == 1.0 and logged[VALID_METRIC] >= 1 / 3 and logged[WEIGHT_METRIC] == 1.0
    assert logged[SCORE_METRIC] == sum(got) / 3
    assert not any(key.startswith("task/optimal_rate") for key in logged)  # it has no optima


def test_a_trl_log_is_one_step_and_the_end_of_training_is_none() -> None:
    logs = {"reward": 0.4, "kl": 0.01, "policy_loss": -0.2, VALID_METRIC: 0.5,
            TOKENS_METRIC: 31.0, "loss": 0.3}  # fmt: skip
    step = train_step(logs, step=7, epoch=1, seconds=2.5)
    assert step is not None
    assert (step.step, step.reward, step.kl, step.loss, step.valid_rate) == (
        7,
        0.4,
        0.01,
        -0.2,
        0.5,
    )
    assert step.answer_tokens == 31.0
    assert train_step({"train_runtime": 12.0}, step=8, epoch=1, seconds=0.0) is None


# --- checkpoints ------------------------------------------------------------------------------


def test_a_model_directory_checksum_sees_every_byte_and_refuses_links(tmp_path: Path) -> None:
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text("{}")
    (model / "model.safetensors").write_bytes(b"\0" * 64)
    first = directory_sha256(model)
    (model / "model.safetensors").write_bytes(b"\0" * 63 + b"\1")
    assert directory_sha256(model) != first
    (model / "leak").symlink_to("/etc/passwd")
    with pytest.raises(ValueError, match="symbolic link"):
        directory_sha256(model)


def test_retention_keeps_the_rounds_asked_and_never_follows_a_link(tmp_path: Path) -> None:
    root = tmp_path / "trl"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("not the run's")
    for n in range(3):
        (root / f"round-{n:03d}" / "model").mkdir(parents=True)
        (root / f"round-{n:03d}" / "model" / "w").write_bytes(b"x" * 1000)
    (root / "round-009").symlink_to(outside)
    (root / "logs").mkdir()
    said = prune_rounds(root, keep={root / "round-001", root / "round-002"})
    assert said is not None and said.startswith("deleted round-000, round-009 (freed 1.0 kB")
    assert sorted(p.name for p in root.iterdir()) == ["logs", "round-001", "round-002"]
    assert (outside / "keep.txt").read_text() == "not the run's"
    assert prune_rounds(root, keep={root / "round-001", root / "round-002"}) is None


def test_memory_and_disk_estimates_follow_the_settings() -> None:
    full = memory_plan(600_000_000, TrlSettings(), kl_coef=1e-3)
    lora = memory_plan(600_000_000, TrlSettings(lora={"enabled": True}), kl_coef=1e-3)
    assert dict(full.parts)["reference"] == 4 * 600_000_000
    assert dict(lora.parts)["reference"] == 0 and lora.total < full.total
    assert disk_bytes(10, TrlSettings(), rounds=5) == 2 * 40
    assert disk_bytes(10, TrlSettings(keep_all_rounds=True), rounds=5) == 5 * 40


# --- serving ----------------------------------------------------------------------------------


def test_the_server_command_is_transformers_serve_pinned_to_the_model() -> None:
    argv = serve_argv("/m/round-000/model", "/m/round-000/model", 8123, TrlSettings(), CPU)
    assert argv[:5] == (sys.executable, "-m", "transformers.cli.transformers", "serve",
                        "/m/round-000/model")  # fmt: skip
    assert argv[argv.index("--port") : argv.index("--port") + 2] == ("--port", "8123")
    vllm = serve_argv("/m", "m", 8123, TrlSettings(serve_engine="vllm"), CPU)
    assert "--served-model-name" in vllm and "vllm.entrypoints.cli.main" in vllm


def _server(tmp_path: Path, code: str, port: int) -> ModelServer:
    launch = Launch((sys.executable, "-c", code), tmp_path / "serve.log")
    return ModelServer(launch, port, "m", what="transformers serve of m", lists_models=False,
                       grace_s=1.0)  # fmt: skip


def test_a_server_that_exits_or_whose_port_is_taken_fails_in_one_line(tmp_path: Path) -> None:
    dying = _server(tmp_path, "import sys; print('CUDA out of memory'); sys.exit(3)", free_port())
    with pytest.raises(ServerFailed, match=r"(?s)^transformers serve of m exited with code 3.*"
                       "CUDA out of memory"):  # fmt: skip
        dying.start(timeout_s=30, poll_s=0.05)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = int(taken.getsockname()[1])
        with pytest.raises(ServerFailed, match=f"port {port} on 127.0.0.1 is already in use"):
            _server(tmp_path, "import time; time.sleep(60)", port).start(timeout_s=5)
    slow = _server(tmp_path, "import time; time.sleep(60)", free_port())
    with pytest.raises(ServerFailed, match=r"was not ready after 0\.5s"):
        slow.start(timeout_s=0.5, poll_s=0.05)
    assert slow.process is None  # stopped


class DyingServerBackend:
    """A backend whose server exits at start (a real process), as a broken install would."""

    name = "dying"

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path

    def endpoint(self, which: Literal["policy", "base"]) -> Endpoint | None:
        server = _server(self.tmp_path, "import sys; print('no such model'); sys.exit(2)",
                         free_port())  # fmt: skip
        return server.start(timeout_s=30, poll_s=0.05)

    def release(self) -> None:
        pass


def test_a_server_that_will_not_start_is_a_failed_design_step_not_a_crash(tmp_path: Path) -> None:
    experiment = ExperimentConfig.from_mapping({"designers": ["self"], "rounds": 2})
    config = shared_start(experiment, 0)
    backend: Any = DyingServerBackend(tmp_path)
    with serving(backend, ["policy"]) as served:
        assert isinstance(served, Served) and not served.endpoints
        assert "exited with code 2" in served.failures["policy"]
    designer = create_designer("self")

    def never(endpoints: object) -> Any:
        raise AssertionError("the designer must not be asked without its model")

    proposal = design(designer, experiment.task_object, backend, never, config, deadline_s=60)
    assert proposal.kept_previous and proposal.config == config
    assert proposal.failure_reason == "model server did not start"
    (line,) = proposal.failures
    assert line.startswith("policy model: transformers serve of m exited with code 2")
    assert "\n" not in line
    assert issubclass(ServerFailed, ServerUnavailable)


def test_resume_continues_from_the_saved_model_only_while_its_checksum_holds(
    tmp_path: Path,
) -> None:
    from harness.backends.trl.backend import TrlBackend

    experiment = trl_experiment(device="cpu")
    backend = TrlBackend(experiment, tmp_path / "run", threads=1)
    model = tmp_path / "run" / "trl" / "round-000" / "model"
    model.mkdir(parents=True)
    (model / "config.json").write_text("{}")
    (model / "model.safetensors").write_bytes(b"\0" * 32)
    backend.model_dir, backend.model_sha256 = model, directory_sha256(model)
    backend.rounds_done, backend.steps_done = 1, 3
    backend.running.update(0.5)
    backend.save(tmp_path / "checkpoint")
    record = backend.target_record()
    assert record["model"] == "trl/round-000/model" and record["device"] == "cpu"
    assert record["model_sha256"] == backend.model_sha256

    resumed = TrlBackend(experiment, tmp_path / "run", threads=1)
    resumed.load(tmp_path / "checkpoint")
    assert (resumed.current_model, resumed.rounds_done, resumed.steps_done) == (str(model), 1, 3)
    assert resumed.running.value == backend.running.value
    (model / "model.safetensors").write_bytes(b"\1" * 32)
    with pytest.raises(ValueError, match="does not match its checksum"):
        TrlBackend(experiment, tmp_path / "run", threads=1).load(tmp_path / "checkpoint")
