"""The paper's loop for one designer and one seed: generate -> train -> evaluate -> design.

    C_0 = the task's shared seeded start (or the designer's own, if it picks one)
    for round n = 0 .. R-1:
        D_n   = task.generate(C_n, seed_n)            the round's training items
        theta = backend.train_round(D_n)              GRPO, n answers per item
        r_n   = task.report(greedy answers of theta)  on the task's validation suite
        C_n+1 = task.project(designer.propose(ctx))   what the designer makes of r_n and history
    finally: greedy and best-of-n results on the task's benchmark suites (task.score_suite)

The loop knows no task: it reaches the experiment's task only through the `Task` interface,
and writes its records in the task's own models (`run_records.task_records`).

A designer that asks the trained checkpoint or the base model (`self`, `base`) gets them served
by the backend for the design step only (`serving`), so a GPU backend frees the memory its
server held before the next round trains.

Each round's record also says where its time went (`harness.round_timings`): the phases as
timed here, and the model loads, optimiser steps and validation the backend reports.

Every finished round is written to the run directory before the next starts, so `--resume`
picks up after the last finished round: the backend reloads that round's checkpoint and the
next configuration is the one that round's proposal wrote. Round seeds depend only on the run's
seed and the round index, so a resumed run gives the results of an uninterrupted one.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from pydantic import BaseModel

from designers import (
    DesignContext,
    Designer,
    DesignerNotReady,
    Endpoint,
    Proposal,
    ServedModel,
    backend_endpoints,
    checked_initial_config,
    create_designer,
    ensure_ready,
    kept_step,
    parse_entry,
    run_design_step,
    takes_context_variant,
    task_problem,
)
from envdesign_common.seeds import key_seed
from harness.backends.base import Backend, BackendUnavailable, ServingBackend, machine_of, serving
from harness.evaluate import benchmark_suite, experiment_suite, validation_report
from harness.events import CurveFile, Observers, PhaseClock, RunObserver
from harness.experiment import ExperimentConfig
from harness.round_timings import accounted, benchmark_timings
from harness.run_dir import RunDir
from run_records import (
    MachineRecord,
    ResultRecord,
    RoundResult,
    RunFileError,
    one_line,
    over_rounds,
    stamp,
    store_scored,
    task_records,
)
from tasks import Task


def run_designer(
    experiment: ExperimentConfig,
    designer_name: str,
    seed: int,
    backend: Backend,
    run: RunDir,
    *,
    resume: bool = False,
    observers: Sequence[RunObserver] = (),
    workers: int | None = None,
    allow_design_failures: bool = False,
) -> ResultRecord:
    """Run the whole loop for one designer and seed; returns (and writes) its ResultRecord.

    `observers` watch it (progress bars, TensorBoard, ...; the curves file is always written).
    `workers` caps the generator's processes (1 inside a pool of runs; None: all cores).
    A design step whose designer could not design keeps the configuration and is recorded
    as failed in its proposal; `allow_design_failures` is written into the record for boards.
    """
    started, clock = time.perf_counter(), PhaseClock()
    watch = Observers([CurveFile(run.curves), clock, *observers])
    run.open(resume)
    if (done := run.result()) is not None:
        watch.phase("done", experiment.rounds)
        return done
    serves, task = isinstance(backend, ServingBackend), experiment.task_object
    records = task_records(task)
    designer, initial, own = start_run(experiment, designer_name, seed, serves_models=serves)
    validation = experiment_suite(task, experiment.validation, experiment.limit).items
    rounds = run.finished_rounds()
    config = resume_point(backend, run, rounds, initial, seed)
    for n in range(len(rounds), experiment.rounds):
        run.start_round(n)
        run.write_text(f"round-{n:03d}/config.yaml", task.config_yaml(config))
        watch.phase("generate", n)
        data = task.generate(config, round_seed(seed, n, "data"), workers=workers)
        watch.phase("train", n)
        training = backend.train_round(data.items, epochs=experiment.epochs_per_round,
                                       seed=round_seed(seed, n, "train"),
                                       on_step=partial(watch.step, n))  # fmt: skip
        backend.save(run.checkpoint(n))
        watch.phase("evaluate", n)
        result = records.round(round=n, config=config, stats=data.stats,
                               validation=validation_report(task, backend, validation,
                                                            round_seed(seed, n, "eval")),
                               train_seconds=training.seconds, samples=training.samples,
                               epochs=training.epochs, training=training.summary)  # fmt: skip
        if n + 1 < experiment.rounds:
            watch.phase("design", n)
            context_for = partial(design_context, experiment, seed, initial, [*rounds, result])
            proposal = design(designer, task, backend, context_for, config,
                              experiment.design_deadline(designer_name))  # fmt: skip
            result = result.model_copy(update={"proposal": proposal})
        result = run.finish_round(accounted(result, clock, backend, training))
        watch.round_done(result, task.rates(result.validation))
        rounds.append(result)
        config = result.proposal.config if result.proposal is not None else config
    watch.phase("benchmark", experiment.rounds)
    scored = {name: benchmark_suite(task, backend,
                                    experiment_suite(task, name, experiment.limit),
                                    experiment.best_of, seed)
              for name in experiment.benchmarks}  # fmt: skip
    suites, answers_sha256 = store_scored(run.path, scored)
    record = records.result(**stamp(), experiment=experiment.model_dump(mode="json"),
                            designer=designer_name, seed=seed, backend=backend.name,
                            initial_source="designer" if own else "shared",
                            rounds=tuple(rounds), suites=suites, answers_sha256=answers_sha256,
                            allow_design_failures=allow_design_failures,
                            machine=run_machine(backend, rounds),
                            benchmark_timings=benchmark_timings(clock, backend,
                                                                experiment.rounds),
                            seconds=time.perf_counter() - started)  # fmt: skip
    run.write_result(record)
    watch.phase("done", experiment.rounds)
    return record


def design(
    designer: Designer,
    task: Task[Any, Any],
    backend: Backend,
    context_for: Callable[[Mapping[ServedModel, Endpoint]], DesignContext[Any, Any, Any]],
    config: BaseModel,
    deadline_s: float,
) -> Proposal[Any]:
    """The designer's proposal, asked with the models it reads served for the step only, within
    `deadline_s` and checked before the loop uses it (`run_design_step`). A server that could
    not start, like a step that hangs, raises or breaks the contract, makes the step a failed
    one -- the configuration is kept, its reason recorded -- rather than ending the run."""
    with serving(backend, backend_endpoints(designer)) as served:
        if served.failures:
            lines = tuple(f"{which} model: {line}" for which, line in served.failures.items())
            return kept_step(designer.name, config, "model server did not start", lines)
        return run_design_step(designer, context_for(served.endpoints), deadline_s, task)


def run_machine(backend: Backend, rounds: Sequence[RoundResult]) -> MachineRecord | None:
    """How the run computed: the backend's machine record, marked mixed where a round's
    recorded fingerprint differs from this process's (a run resumed elsewhere)."""
    machine = machine_of(backend)
    if machine is None:
        return None
    return over_rounds(machine, ((r.target or {}).get("fingerprint") for r in rounds))


def start_run(
    experiment: ExperimentConfig,
    designer_name: str,
    seed: int,
    *,
    serves_models: bool,
    ready: bool = True,
) -> tuple[Designer, BaseModel, bool]:
    """A run's designer, its round-0 configuration, and whether the designer chose that
    configuration itself (else it is the shared seeded one). The dry run starts here too."""
    designer = make_designer(experiment, designer_name, serves_models=serves_models, ready=ready)
    shared = shared_start(experiment, seed)
    own = checked_initial_config(designer, experiment.task_object, shared, seed)
    if own is None:
        return designer, shared, False
    return designer, experiment.task_object.settled(own, shared), True


def shared_start(experiment: ExperimentConfig, seed: int) -> BaseModel:
    """The round-0 configuration every designer of seed `seed` shares unless it picks its own:
    the one the experiment gives, else the task's own start for the seed, with what the
    experiment fixes (the sample budget, the task's settings) in place."""
    task = experiment.task_object
    start: BaseModel = task.initial_config(seed, experiment.samples_per_round)
    if experiment.initial.kind == "given" and experiment.initial.config is not None:
        start = task.settled(experiment.initial.config, start)
    return start


def make_designer(
    experiment: ExperimentConfig, name: str, *, serves_models: bool, ready: bool = True
) -> Designer:
    """The designer of entry `name` (``gpt``, ``gpt@V3``) with its options (LLM designers get
    the entry's variant, else the experiment's), checked before any training: its options, the
    experiment's task among those it designs for, a server for the models it asks
    (`serves_models`: whether the backend serves its checkpoints) and, with `ready`, its own
    readiness on this machine (keys, packages)."""
    designer = create_designer(name, **designer_options(experiment, name))
    if (problem := task_problem(designer, name, experiment.task_object)) is not None:
        raise DesignerNotReady(problem)
    if backend_endpoints(designer) and not serves_models:
        raise DesignerNotReady(
            f"designer {name!r} asks the model the training backend serves, but the "
            f"{experiment.backend} backend serves none: use backend trl or verl, or give it a "
            f"server, e.g. --set 'designer_options.{parse_entry(name).spec}.endpoint={{base_url: "
            f"http://127.0.0.1:8000/v1, model: my-model}}'"
        )
    if ready:
        ensure_ready(designer)
    return designer


def designer_options(experiment: ExperimentConfig, name: str) -> dict[str, Any]:
    """The options entry `name` is built with: those under its bare spec (shared by all its
    variants), overridden by those under the whole entry; an LLM designer without a variant
    suffix gets the experiment's variant (a suffix sets its own in `create_designer`)."""
    entry = parse_entry(name)
    options = dict(experiment.designer_options.get(entry.spec, {}))
    if entry.entry != entry.spec:
        options.update(experiment.designer_options.get(entry.entry, {}))
    if entry.variant is None and takes_context_variant(entry.spec):
        options.setdefault("variant", experiment.variant)
    return options


def resume_point(
    backend: Backend, run: RunDir, rounds: Sequence[RoundResult], initial: BaseModel, seed: int
) -> BaseModel:
    """Restore the backend after the last finished round; the configuration to train next."""
    if not rounds:
        backend.initialise(seed)
        return initial
    last = rounds[-1]
    try:
        backend.load(run.checkpoint(last.round))
    except BackendUnavailable:
        raise
    except (OSError, RuntimeError, ValueError, KeyError) as err:  # one no checksum vouched for
        raise RunFileError(
            run.checkpoint(last.round),
            f"cannot be loaded ({type(err).__name__}: {one_line(err)})",
            f"remove {run.round_path(last.round).name}/round.json so `--resume` trains that "
            "round again",
        ) from None
    return last.proposal.config if last.proposal is not None else last.config


def round_seed(seed: int, n: int, purpose: str) -> int:
    """A seed for one purpose of one round, independent of every other round."""
    return key_seed("run", seed, n, purpose) % (2**31)


def design_context(
    experiment: ExperimentConfig,
    seed: int,
    initial: BaseModel,
    rounds: Sequence[RoundResult],
    endpoints: Mapping[ServedModel, Endpoint],
) -> DesignContext:
    """What the designer sees after the last of `rounds` (the others are its history)."""
    *earlier, current = rounds
    return task_records(experiment.task_object).context(
        round=current.round,
        total_rounds=experiment.rounds,
        config=current.config,
        initial_config=initial,
        validation=current.validation,
        stats=current.stats,
        history=tuple(r.history_entry() for r in earlier),
        training=current.training_info(),
        seed=seed,
        policy_endpoint=endpoints.get("policy"),
        base_endpoint=endpoints.get("base"),
        task=experiment.task_object,
    )
