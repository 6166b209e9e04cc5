"""`VerlBackend`: the round loop's `Backend` on GPUs -- GRPO in verl, answers and servers by vLLM.

Every GPU job is a fresh process (`process`), so GPU memory is released between training,
evaluation and serving, and verl's per-process reward-module cache never outlives a round:

* ``train_round`` writes the round's datasets and reward entry point (`task_feed`: the task's
  items as rows, their text the ground truth the reward rebuilds them from), then
  runs ``python -m verl.trainer.main_ppo`` with the round's Hydra overrides
  (`build_overrides`), or submits it as a Ray job with a `VerlRuntime.ray_address`. A crashed
  attempt is rerun with the same command and resumes from the round's latest checkpoint
  (``trainer.resume_mode=auto``, `trainer_runs`); curves stream into ``on_step`` while verl
  runs (`curves`), and the round's summary (`run_records.training_summary`) is made of them and the
  round's settings. With ``validate_in_verl`` verl also validates the round's model greedily
  after the last step (`validation`).
* ``respond`` runs ``harness.backends.verl.generate`` (vLLM offline, `LLM.chat`) on the task's
  prompts; the loop judges the texts through the task, as for every backend. The round's
  validation is answered from verl's dump instead where it answers every item.
* ``endpoint`` starts ``vllm serve`` on 127.0.0.1 and ``release`` stops it (`serve`).

Each of these processes loads a model first; ``take_overhead`` hands the loop what each load
took (`loads`), and ``target_record`` the verl line and attention, for the round's record.

Files: everything lives in the run directory, under ``<run>/verl/``::

    round-000/train.parquet, val.parquet, reward.py    what the round trains on
    round-000/checkpoints/                               trainer.default_local_dir
    round-000/metrics/attempt-K.jsonl, rollouts/        verl's file logger and rollout dumps
    round-000/validation/<last step>.jsonl               verl's validation of the round's model
    round-000/steps.jsonl, train.log                     the round's curves and verl's output
    logs/generate.log, logs/serve-policy.log             evaluation and serving output

``round-NNN/`` is not cleared when the harness restarts a round (the loop's own round
directory is), so a run resumed with ``--resume`` in the middle of training continues verl's
checkpoints. ``save(<run>/round-NNN/checkpoint)`` writes ``verl_state.json`` there -- the
round count, the running valid rate and the relative path of the round's merged Hugging Face
model (plus an ``hf_model`` link to it) -- and ``load`` continues from it.

The reward's accuracy weight for round n is the running valid rate (an exponential moving
average over training steps, as the CPU learner keeps it) at the end of round n-1, 0 for round
0, passed to the reward as ``valid_rate``.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any, Literal

from designers import Endpoint, ServedModel
from envdesign_common import RunningValidRate, atomic_write_bytes
from harness.backends.base import BackendOverhead, RoundTraining
from harness.backends.processes import Launch
from harness.backends.servers import DesignServers, ModelServer, free_port
from harness.backends.verl.answers import generate_answers
from harness.backends.verl.batch_plan import BatchPlan, plan_round
from harness.backends.verl.curves import RoundCurves, logged_loss_scale
from harness.backends.verl.generate import GenerateRequest
from harness.backends.verl.layout import dump_file
from harness.backends.verl.loads import LoadLedger
from harness.backends.verl.overrides import RoundInputs, build_overrides, final_hf_model
from harness.backends.verl.retention import prune_round
from harness.backends.verl.runtime import VerlRuntime, ppo_environment
from harness.backends.verl.serve import serve_argv
from harness.backends.verl.settings import VerlSettings
from harness.backends.verl.state import STATE_FILE, VerlState
from harness.backends.verl.target import VerlTarget, resolve_target
from harness.backends.verl.task_feed import TaskFeed, task_feed
from harness.backends.verl.trainer_runs import TrainerRun, train_until_saved
from harness.backends.verl.validation import PendingValidation, logged_seconds
from harness.evaluate import experiment_suite
from harness.experiment import ExperimentConfig
from run_records import TrainStep, summarise

__all__ = ["STATE_FILE", "VerlBackend"]


class VerlBackend:
    """GRPO with verl, evaluation and serving with vLLM; see the module docstring."""

    name = "verl"
    serves_models = True
    """`self` and `base` are served through vLLM during the design step."""

    def __init__(
        self,
        experiment: ExperimentConfig,
        workdir: Path,
        runtime: VerlRuntime | None = None,
        *,
        target: VerlTarget | None = None,
    ) -> None:
        """`target` fixes the verl line and attention instead of resolving them at the first
        launch (the dry run's, resolved without probing the machine)."""
        section = experiment.settings_of(VerlSettings)
        logger = section.logger
        self.settings: VerlSettings = section.model_copy(
            update={"logger": logger if "file" in logger else (*logger, "file")}
        )
        self.experiment = experiment
        self.workdir = Path(workdir).absolute()  # verl runs in the round directory
        self.root = self.workdir / "verl"
        self.runtime = runtime or VerlRuntime()
        self.ledger = LoadLedger()
        self._servers = DesignServers(self.ledger)
        self._calls = 0
        self._target = target
        self._pending: PendingValidation | None = None
        self.feed: TaskFeed = task_feed(experiment.task_object, experiment.task_settings)
        self.initialise(0)

    @property
    def target(self) -> VerlTarget:
        """The verl line and attention the trainer is launched with, resolved (and probed) once
        per backend, at the first launch: constructing a backend probes nothing."""
        if self._target is None:
            self._target = resolve_target(self.settings, self.runtime)
        return self._target

    def check_installed(self) -> None:
        """`BackendUnavailable` naming the ``gpu`` extra when verl or vLLM is missing."""
        self.runtime.check_installed()

    # --- state ----------------------------------------------------------------------------

    def initialise(self, seed: int) -> None:
        """Start from the experiment's policy (a pretrained model: `seed` draws nothing)."""
        del seed
        self.model: Path | None = None
        self.rounds_done = 0
        self.steps_done = 0
        self.running = RunningValidRate()

    @property
    def current_model(self) -> str:
        """The model to answer with: the last round's Hugging Face directory, or the policy."""
        return str(self.model) if self.model is not None else self.experiment.policy

    @property
    def run_name(self) -> str:
        """``<designer>-seed-<n>`` from the run directory (names verl's experiment)."""
        return f"{self.workdir.parent.name}-{self.workdir.name}"

    def round_dir(self, n: int) -> Path:
        return self.root / f"round-{n:03d}"

    def save(self, directory: Path) -> None:
        """Where the next round starts: `verl_state.json` pointing at the round's model."""
        VerlState(
            policy=self.experiment.policy, model=self.model, rounds_done=self.rounds_done,
            steps_done=self.steps_done, running_valid_rate=self.running.value,
            running_updates=self.running.updates,
        ).write(directory, self.name)  # fmt: skip
        if self.model is not None:  # the round is finished: only its weights serve on (retention)
            prune_round(self.round_dir(self.rounds_done - 1), self.model,
                        keep_training_state=self.settings.keep_training_state,
                        keep_rollouts=self.settings.keep_rollouts)  # fmt: skip

    def load(self, directory: Path) -> None:
        """Continue from what `save` wrote."""
        state = VerlState.read(directory, self.name)
        self.initialise(0)
        self.model = state.model
        self.rounds_done, self.steps_done = state.rounds_done, state.steps_done
        self.running = RunningValidRate(initial=state.running_valid_rate)
        self.running.updates = state.running_updates

    # --- training -------------------------------------------------------------------------

    def round_inputs(self, n: int, train_rows: int, seed: int) -> RoundInputs:
        """Round `n`'s inputs, continuing from the current model (no file is touched)."""
        where = self.round_dir(n)
        return RoundInputs(
            round=n,
            train_files=where / "train.parquet",
            val_files=where / "val.parquet",
            checkpoint_dir=where / "checkpoints",
            model_path=None if self.model is None else str(self.model),
            run_name=self.run_name,
            seed=seed,
            valid_rate=self.running.value,
            train_rows=train_rows,
            reward_path=where / "reward.py",
            rollout_dir=where / "rollouts",
            validation_dir=where / "validation" if self.settings.validate_in_verl else None,
        )

    def plan(self, train_rows: int, epochs: int | None = None) -> BatchPlan:
        epochs = self.experiment.epochs_per_round if epochs is None else epochs
        return plan_round(self.settings, self.experiment.grpo.group_size, train_rows, epochs)

    def train_launch(
        self, inputs: RoundInputs, metrics: Path, epochs: int | None = None
    ) -> tuple[Launch, str | None]:
        """The round's training command, and the Ray job's submission id when it is one."""
        experiment = self.experiment
        if epochs is not None and epochs != experiment.epochs_per_round:
            experiment = experiment.model_copy(update={"epochs_per_round": epochs})
        overrides = build_overrides(experiment, self.settings, inputs, target=self.target)
        commands = self.runtime.commands
        env = {
            **ppo_environment(line=self.target.line),
            "VERL_FILE_LOGGER_PATH": str(metrics.absolute()),
        }
        log = self.round_dir(inputs.round) / "train.log"
        if self.runtime.ray_address is None:
            argv = (commands.python, *commands.trainer, *overrides)
            # RAY_ADDRESS=local: verl starts a Ray instance of its own, even on a machine (or
            # inside a Ray task) where another one runs, and so uses only the GPUs it was given
            return Launch(argv, log, {**env, "RAY_ADDRESS": "local"}, cwd=log.parent), None
        job = f"envdesign-{self.run_name}-r{inputs.round:03d}-{uuid.uuid4().hex[:8]}"
        argv = (
            commands.python, *commands.ray, "job", "submit",
            "--address", self.runtime.ray_address,
            "--submission-id", job,
            "--runtime-env-json", json.dumps({"env_vars": env}, sort_keys=True),
            "--", commands.job_python, *commands.trainer, *overrides,
        )  # fmt: skip
        return Launch(argv, log, cwd=log.parent), job

    def stop_job_launch(self, job: str) -> Launch:
        commands, address = self.runtime.commands, self.runtime.ray_address
        assert address is not None
        argv = (
            commands.python,
            *commands.ray,
            "job",
            "stop",
            "--address",
            address,
            "--no-wait",
            job,
        )
        return Launch(argv, self.root / "logs" / "ray-job-stop.log")

    def write_round_files(self, inputs: RoundInputs, items: Sequence[Any]) -> None:
        """The round's training and validation parquet and its reward entry point."""
        meta = {"round": inputs.round, "run": self.run_name}
        self.feed.write_rows(items, inputs.train_files, "train", meta)
        experiment = self.experiment
        suite = experiment_suite(experiment.task_object, experiment.validation, experiment.limit)
        validation = [item.item for item in suite.items]
        self.feed.write_rows(validation, inputs.val_files, "validation", meta)
        atomic_write_bytes(inputs.reward_path, self.feed.reward_module.read_bytes())

    def train_round(
        self,
        instances: Sequence[Any],
        *,
        epochs: int,
        seed: int,
        on_step: Callable[[TrainStep], None] | None = None,
    ) -> RoundTraining:
        """One round of GRPO in verl, continuing from the previous round's model."""
        self.release()
        started = time.perf_counter()
        n = self.rounds_done
        plan = self.plan(len(instances), epochs)
        inputs = self.round_inputs(n, len(instances), seed)
        self.write_round_files(inputs, instances)
        curves = RoundCurves(
            self.round_dir(n),
            self.feed,
            steps_before=self.steps_done,
            running=lambda: self.running.value,
            keep_rollouts=self.settings.keep_rollouts,
            loss_scale=logged_loss_scale(self.target.line, plan, self.settings.extra_overrides),
            responses_per_step=plan.samples_per_step,
            dumps_trail_metrics=self.target.line != "0.6",
        )
        report = on_step or (lambda step: None)
        for step in curves.replay():
            report(step)
        self._train(inputs, plan, curves, report, epochs)
        steps = curves.ordered()
        if estimated := curves.estimated_steps():  # shown with the round, never passed off
            self.ledger.note(
                f"round {n}: {len(estimated)} of {len(steps)} step(s) took the running valid "
                f"rate (their rollout dumps were missing or unfinished): steps {list(estimated)}"
            )
        model = final_hf_model(inputs.checkpoint_dir, plan)
        for step in steps:
            self.running.update(min(1.0, max(0.0, step.valid_rate)))
        self.model, self.rounds_done = model, n + 1
        self._expect_validation(inputs, plan)
        self.steps_done += plan.total_steps
        grpo = self.experiment.grpo
        summary = summarise(
            steps, epochs=epochs, samples=len(instances), group_size=grpo.group_size,
            learning_rate=grpo.learning_rate, kl_coef=grpo.kl_coef,
            valid_rate=inputs.valid_rate,
            accuracy_weight=self.feed.task.accuracy_weight(inputs.valid_rate),
        )  # fmt: skip
        return RoundTraining(
            steps=steps,
            epochs=epochs,
            samples=len(instances),
            seconds=time.perf_counter() - started,
            summary=summary,
        )

    def _train(
        self,
        inputs: RoundInputs,
        plan: BatchPlan,
        curves: RoundCurves,
        report: Callable[[TrainStep], None],
        epochs: int,
    ) -> None:
        """Run the trainer until the round's last step is saved (`trainer_runs`)."""
        train_until_saved(TrainerRun(
            inputs, plan, curves, report, partial(self.train_launch, inputs, epochs=epochs),
            self.stop_job_launch, self.runtime, self.ledger,
            inputs.model_path or self.experiment.policy,
        ))  # fmt: skip

    def _expect_validation(self, inputs: RoundInputs, plan: BatchPlan) -> None:
        """After a round: where verl dumped its validation of the round's model, if it did."""
        self._pending = None
        if inputs.validation_dir is None:
            return
        path = dump_file(inputs.validation_dir, plan.total_steps)
        log = self.root / "logs" / "generate.log"
        self._pending = PendingValidation(path, self.current_model, log, self.feed)
        attempts = (self.round_dir(inputs.round) / "metrics").glob("attempt-*.jsonl")
        metrics = sorted(attempts, key=lambda p: (len(p.name), p.name))  # attempt-2 before -10
        self.ledger.validation_seconds = logged_seconds(metrics, plan.total_steps)

    # --- answers --------------------------------------------------------------------------

    def generate_request(
        self, directory: Path, samples: int, greedy: bool, seed: int
    ) -> GenerateRequest:
        s = self.settings
        return GenerateRequest(
            model=self.current_model,
            prompts=directory / "prompts.jsonl",
            answers=directory / "answers.jsonl",
            n=samples,
            temperature=0.0 if greedy else s.temperature,
            top_p=s.top_p,
            max_tokens=s.max_response_length,
            seed=seed,
            tensor_parallel=s.tensor_parallel,
            gpu_memory_utilization=s.eval_gpu_memory_utilization,
            max_model_len=s.max_prompt_length + s.max_response_length,
            enable_thinking=s.enable_thinking,
            timings=directory / "timings.json",
        )

    def generate_launch(self, request_path: Path) -> Launch:
        commands = self.runtime.commands
        argv = (commands.python, *commands.generator, str(request_path.absolute()))
        return Launch(argv, self.root / "logs" / "generate.log")

    def respond(
        self, instances: Sequence[Any], *, samples: int = 1, greedy: bool = True, seed: int = 0
    ) -> list[list[str]]:
        """`samples` answers per item from vLLM (greedy: temperature 0).

        The first greedy call after a round is the round's validation: with
        ``validate_in_verl`` it is answered from verl's own validation of the round's model
        (`validation`) when that dump answers every instance; otherwise, and for every later
        call, by a separate vLLM pass. The log and the round's record say which, and why.
        """
        if samples < 1:
            raise ValueError(f"samples must be at least 1, got {samples}")
        if not instances:
            return []
        pending, self._pending = self._pending, None
        if pending is not None and samples == 1 and greedy:
            validated, why = pending.answers(instances, self.current_model)
            self.ledger.note(why)
            if validated is not None:
                return [[answer] for answer in validated]
        self.release()
        self._calls += 1
        directory = self.root / "generate" / f"call-{os.getpid()}-{self._calls:04d}"
        request = self.generate_request(directory, samples, greedy, seed)
        return generate_answers(self.feed.task, instances, request, self.generate_launch,
                                self.runtime, self.ledger)  # fmt: skip

    # --- serving --------------------------------------------------------------------------

    def served_model(self, which: ServedModel) -> tuple[str, str]:
        """(model to serve, served name) for the policy or the base model."""
        base = self.experiment.policy
        short = Path(base).name or "model"
        if which == "base" or self.model is None:
            return base, base if which == "base" else f"{short}-untrained"
        return str(self.model), f"{short}-rl-round{self.rounds_done - 1}"

    def serve_launch(self, which: ServedModel, model: str, name: str, port: int | str) -> Launch:
        argv = serve_argv(self.runtime.commands, self.settings, model, name, port)
        return Launch(argv, self.root / "logs" / f"serve-{which}.log")

    def endpoint(self, which: Literal["policy", "base"]) -> Endpoint | None:
        """Serve the current checkpoint (policy) or the base model; `release` stops it."""
        running = self._servers.endpoint(which)
        if running is not None:
            return running
        model, name = self.served_model(which)
        port = free_port()
        server = ModelServer(
            self.serve_launch(which, model, name, port), port, name,
            what=f"vllm serve of {name}", grace_s=self.runtime.stop_grace_s,
        )  # fmt: skip
        return self._servers.start(which, model, server, self.runtime.serve_timeout_s,
                                   min(1.0, self.runtime.poll_s))  # fmt: skip

    def release(self) -> None:
        """Stop every server `endpoint` started."""
        self._servers.stop_all()

    # --- overhead -------------------------------------------------------------------------

    def take_overhead(self) -> BackendOverhead:
        """The model loads (and notes) since the loop last asked (`loads`)."""
        return self.ledger.take()

    def target_record(self) -> dict[str, Any]:
        """The verl version and attention the trainer runs with, for the round's record."""
        return dict(self.target.as_record())
