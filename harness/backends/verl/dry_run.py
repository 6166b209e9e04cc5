"""``harness compare ... --backend verl --dry-run``: round 0 of every run, as it would be launched.

Prints, for each (designer, seed) run, the files round 0 writes (the generator configuration,
the datasets, the reward entry point, the generation requests) and every command: verl's
trainer with all its Hydra overrides and environment, vLLM's offline generation, and the
``vllm serve`` a model-reading designer gets after the round. Nothing is started and nothing
is written; verl and vLLM need not be installed. The commands come from the same methods the
backend runs them with, so what is printed is what would run.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from designers import backend_endpoints, create_designer, own_initial_config
from harness.backends.verl.backend import VerlBackend
from harness.backends.verl.overrides import REWARD_MODULE, hf_model_dir
from harness.backends.verl.process import Launch
from harness.backends.verl.runtime import VerlRuntime
from harness.executors.base import plan as plan_jobs
from harness.experiment import ExperimentConfig
from harness.loop import designer_options, round_seed
from harness.run_dir import RunDir
from mapf_env import EnvConfig, load_suite

CONTINUATION = " \\\n    "


def _command(launch: Launch) -> str:
    cwd = f"cd {shlex.quote(str(launch.cwd))} &&{CONTINUATION}" if launch.cwd else ""
    return f"{cwd}{launch.shell(CONTINUATION)}{CONTINUATION}>> {launch.log} 2>&1"


def _indent(text: str) -> str:
    return "\n".join(f"    {line}" for line in text.rstrip().splitlines())


def _round_zero(experiment: ExperimentConfig, designer: str, seed: int) -> tuple[EnvConfig, str]:
    shared = experiment.initial.resolve(seed, experiment.n_agents, experiment.samples_per_round,
                                        experiment.reward_objective)  # fmt: skip
    try:
        made = create_designer(designer, **designer_options(experiment, designer))
        own = own_initial_config(made, shared, seed)
    except Exception as err:  # a plug-in that cannot be built here still shows its commands
        return shared, f"shared start (designer {designer!r} not built here: {err})"
    return (own, "the designer's own start") if own is not None else (shared, "shared start")


def _wanted(experiment: ExperimentConfig, designer: str) -> tuple[str, ...]:
    try:
        made = create_designer(designer, **designer_options(experiment, designer))
    except Exception:
        return ()
    return backend_endpoints(made)


def dry_run(experiment: ExperimentConfig, root: Path, runtime: VerlRuntime | None = None) -> str:
    """The text of the dry run (see the module docstring)."""
    runtime = runtime or VerlRuntime()
    out = [
        f"# dry run of {experiment.name!r}: backend verl, policy {experiment.policy}, "
        f"{experiment.rounds} rounds; nothing is started or written",
        "# training: "
        + (
            f"every round is submitted as a Ray job to {runtime.ray_address}"
            if runtime.submits_jobs
            else "verl starts a Ray instance of its own on this machine (RAY_ADDRESS=local)"
        ),
    ]
    for job in plan_jobs(experiment):
        run = RunDir(root, experiment, job.designer, job.seed)
        backend = VerlBackend(experiment, run.path, runtime)
        rows = experiment.samples_per_round
        config, start = _round_zero(experiment, job.designer, job.seed)
        out += ["", f"## run {job.designer} / seed {job.seed}: {run.path}"]
        inputs = backend.round_inputs(0, rows, round_seed(job.seed, 0, "train"))
        try:
            plan = backend.plan(rows)
        except ValueError as err:
            out.append(f"# cannot train: {err}")
            continue
        out.append(
            f"# round 0: {rows} rows / {plan.prompts_per_step} prompts per step = "
            f"{plan.steps_per_epoch} steps per epoch x {plan.epochs} epochs = "
            f"{plan.total_steps} steps ({plan.dropped_per_epoch} rows left out per epoch); "
            f"{plan.samples_per_mini_batch} samples per mini-batch, {plan.grad_accumulation} "
            f"micro-batches per GPU per mini-batch; checkpoint every {plan.save_freq} steps"
        )
        validation = len(load_suite(experiment.validation).items)
        out += [
            "### files written before training",
            f"{run.round_path(0) / 'config.yaml'}  ({start})",
            _indent(config.to_yaml()),
            f"{inputs.train_files}  ({rows} rows: the round's instances, verl's RL schema)",
            f"{inputs.val_files}  ({validation} rows: suite {experiment.validation!r})",
            f"{inputs.reward_path}  (a copy of {REWARD_MODULE})",
            "### train round 0",
            _command(backend.train_launch(inputs, inputs.checkpoint_dir.parent / "metrics"
                                          / "attempt-1.jsonl")[0]),
        ]  # fmt: skip
        final = hf_model_dir(inputs.checkpoint_dir, plan.total_steps)
        out.append(f"# the round's model, where round 1 starts: {final}")
        trained = VerlBackend(experiment, run.path, runtime)
        trained.model, trained.rounds_done = final, 1
        calls = trained.root / "generate" / "call-<pid>-<n>"
        greedy = trained.generate_request(calls, 1, True, round_seed(job.seed, 0, "eval"))
        out += [
            f"### evaluate round 0: greedy answers on {experiment.validation!r}",
            f"{calls / 'request.json'}",
            _indent(greedy.model_dump_json(indent=2)),
            _command(trained.generate_launch(calls / "request.json")),
        ]
        for which in _wanted(experiment, job.designer):
            model, name = trained.served_model("policy" if which == "policy" else "base")
            launch = trained.serve_launch("policy" if which == "policy" else "base", model, name,
                                          "<free port>")  # fmt: skip
            out += [
                f"### design after round 0: {job.designer!r} reads the served {which} model "
                f"(ready when /health and /v1/models answer; stopped after the design step)",
                _command(launch),
            ]
        sampled = trained.generate_request(calls, experiment.best_of, False, job.seed + 1)
        out += [
            f"### after the last round: benchmarks {', '.join(experiment.benchmarks)}, greedy "
            f"as above and best-of-{experiment.best_of} sampled with",
            _indent(json.dumps(sampled.model_dump(mode="json", include={"n", "temperature",
                                                                        "top_p", "seed"}))),
        ]  # fmt: skip
    return "\n".join(out) + "\n"
