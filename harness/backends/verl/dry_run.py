"""``harness compare ... --backend verl --dry-run``: round 0 of every run, as it would be launched.

Prints the disk budget of the whole comparison (`footprint`), then for each (designer, seed)
run the verl line and attention its trainer is launched with (`target`, unprobed: no GPU is
needed here, so ``auto`` attention says what the launch decides), its overhead budget per round
(`budget`: model loads and what they read, optimiser steps, evaluation, serving), the files
round 0 writes (the generator configuration, the datasets, the reward entry point, the
generation requests) and every command: verl's trainer with all its Hydra overrides and
environment, vLLM's offline generation, and the ``vllm serve`` a model-reading designer gets
after the round. Nothing is started and nothing is written; verl and vLLM need not be
installed. The commands come from the same methods the backend runs them with, and each run's
designer and first configuration from the loop's own start (`harness.loop.start_run`, handed in
as `RoundZero`), so what is printed is what would run.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from harness.backends.base import BackendUnavailable
from harness.backends.processes import Launch
from harness.backends.spec import RoundZero
from harness.backends.verl.backend import VerlBackend
from harness.backends.verl.batch_plan import BatchPlan
from harness.backends.verl.budget import Weights, describe_overhead, weights
from harness.backends.verl.footprint import describe_disk
from harness.backends.verl.layout import dump_file
from harness.backends.verl.overrides import RoundInputs, hf_model_dir
from harness.backends.verl.runtime import VerlRuntime
from harness.backends.verl.settings import VerlSettings
from harness.backends.verl.target import VerlTarget, resolve_target
from harness.backends.verl.versions import UnsupportedVerl
from harness.evaluate import experiment_suite
from harness.experiment import ExperimentConfig

CONTINUATION = " \\\n    "


def _command(launch: Launch) -> str:
    cwd = f"cd {shlex.quote(str(launch.cwd))} &&{CONTINUATION}" if launch.cwd else ""
    return f"{cwd}{launch.shell(CONTINUATION)}{CONTINUATION}>> {launch.log} 2>&1"


def _indent(text: str) -> str:
    return "\n".join(f"    {line}" for line in text.rstrip().splitlines())


def _target(experiment: ExperimentConfig, runtime: VerlRuntime) -> VerlTarget:
    """The run's target, unprobed (the dry run needs no GPU and starts nothing)."""
    try:
        return resolve_target(experiment.settings_of(VerlSettings), runtime, probe=False)
    except UnsupportedVerl as err:
        raise BackendUnavailable(str(err)) from None


def _backend(
    experiment: ExperimentConfig, path: Path, runtime: VerlRuntime, target: VerlTarget
) -> VerlBackend:
    return VerlBackend(experiment, path, runtime, target=target)


def dry_run(
    experiment: ExperimentConfig,
    runs: list[RoundZero],
    runtime: VerlRuntime | None = None,
    *,
    concurrent: int = 1,
) -> str:
    """The text of the dry run of `runs` (see the module docstring); `concurrent` at once."""
    runtime = runtime or VerlRuntime()
    target, w = _target(experiment, runtime), weights(experiment)
    disk = describe_disk(experiment, concurrent=concurrent, line=target.line, prefix="# ")
    out = [
        f"# dry run of {experiment.name!r}: backend verl, policy {experiment.policy}, "
        f"{experiment.rounds} rounds; nothing is started or written",
        "# training: "
        + (
            f"every round is submitted as a Ray job to {runtime.ray_address}"
            if runtime.submits_jobs
            else "verl starts a Ray instance of its own on this machine (RAY_ADDRESS=local)"
        ),
        disk.rstrip("\n"),
    ]
    for run in runs:
        out += ["", *_run(experiment, run, runtime, target, w)]
    return "\n".join(out) + "\n"


def _run(
    experiment: ExperimentConfig,
    run: RoundZero,
    runtime: VerlRuntime,
    target: VerlTarget,
    w: Weights,
) -> list[str]:
    """One run's part of the dry run."""
    backend = _backend(experiment, run.run_path, runtime, target)
    rows = experiment.samples_per_round
    out = [f"## run {run.designer} / seed {run.seed}: {run.run_path}",
           f"# target: {target.describe()}"]  # fmt: skip
    inputs = backend.round_inputs(0, rows, run.train_seed)
    try:
        plan = backend.plan(rows)
    except ValueError as err:
        return [*out, f"# cannot train: {err}"]
    out += [describe_overhead(experiment, plan, run.wanted, w).rstrip("\n")]
    out += _round_zero_files(experiment, backend, inputs, plan, run)
    out += _after_round_zero(experiment, run, runtime, target, plan)
    return out


def _round_zero_files(
    experiment: ExperimentConfig,
    backend: VerlBackend,
    inputs: RoundInputs,
    plan: BatchPlan,
    run: RoundZero,
) -> list[str]:
    """Round 0's batch arithmetic, the files it writes and its training command."""
    rows = experiment.samples_per_round
    task = experiment.task_object
    validation = len(experiment_suite(task, experiment.validation, experiment.limit).items)
    metrics = inputs.checkpoint_dir.parent / "metrics" / "attempt-1.jsonl"
    return [
        f"# round 0: {rows} rows / {plan.prompts_per_step} prompts per step = "
        f"{plan.steps_per_epoch} steps per epoch x {plan.epochs} epochs = "
        f"{plan.total_steps} steps ({plan.dropped_per_epoch} rows left out per epoch); "
        f"{plan.samples_per_mini_batch} samples per mini-batch, {plan.grad_accumulation} "
        f"micro-batches per GPU per mini-batch; checkpoint every {plan.save_freq} steps",
        "### files written before training",
        f"{run.config_file}  ({run.start})",
        _indent(run.config_yaml),
        f"{inputs.train_files}  ({rows} rows: the round's items, verl's RL schema)",
        f"{inputs.val_files}  ({validation} rows: suite {experiment.validation!r})",
        f"{inputs.reward_path}  (a copy of {backend.feed.reward_module})",
        "### train round 0",
        _command(backend.train_launch(inputs, metrics)[0]),
        f"# the round's model, where round 1 starts: "
        f"{hf_model_dir(inputs.checkpoint_dir, plan.total_steps)}",
    ]


def _after_round_zero(
    experiment: ExperimentConfig,
    run: RoundZero,
    runtime: VerlRuntime,
    target: VerlTarget,
    plan: BatchPlan,
) -> list[str]:
    """Round 0's evaluation and design step, and the final benchmarks' sampling."""
    trained = _backend(experiment, run.run_path, runtime, target)
    inputs = trained.round_inputs(0, experiment.samples_per_round, 0)
    trained.model, trained.rounds_done = hf_model_dir(inputs.checkpoint_dir, plan.total_steps), 1
    calls = trained.root / "generate" / "call-<pid>-<n>"
    greedy = trained.generate_request(calls, 1, True, run.eval_seed)
    how = "by vLLM"
    if inputs.validation_dir is not None:
        how = (f"from verl's own validation after step {plan.total_steps} "
               f"({dump_file(inputs.validation_dir, plan.total_steps)}); by vLLM only where "
               "that dump lacks an answer")  # fmt: skip
    out = [
        f"### evaluate round 0: greedy answers on {experiment.validation!r} {how}",
        f"{calls / 'request.json'}",
        _indent(greedy.model_dump_json(indent=2)),
        _command(trained.generate_launch(calls / "request.json")),
    ]
    for which in run.wanted:
        model, name = trained.served_model(which)
        out += [
            f"### design after round 0: {run.designer!r} reads the served {which} model "
            f"(ready when /health and /v1/models answer; stopped after the design step)",
            _command(trained.serve_launch(which, model, name, "<free port>")),
        ]
    sampled = trained.generate_request(calls, experiment.best_of, False, run.seed + 1)
    shown = sampled.model_dump(mode="json", include={"n", "temperature", "top_p", "seed"})
    return [
        *out,
        f"### after the last round: benchmarks {', '.join(experiment.benchmarks)}, greedy "
        f"as above and best-of-{experiment.best_of} sampled with",
        _indent(json.dumps(shown)),
    ]
