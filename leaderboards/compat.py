"""Which runs may share a board: same task at the same version, same benchmarks (suites and
contents), same experiment, and the same way of computing.

A board compares designers, so runs may differ only in the designer, its options and the seed.
Two runs of another benchmark version, other suites, or another experiment setting (rounds,
samples, backend, policy, precision, ...) are refused with a message naming both runs and the
first difference: nothing is averaged across incompatible runs. Two suite versions may hold the
same instances with different answer keys, so runs of two versions never share a board either.

The same config and seed can still give other numbers on another machine: other float kernels
(torch's CPU capability, MKL's branch, native or emulated bf16) or another torch sum in another
order. Each record's `machine` says how it computed, and runs whose `MachineRecord.pool_key`
differs are refused too, unless the caller asks to pool them (`pool_machines`; the CLI's
``--pool-machines``), which `machine_notes` then says. A backend that does not say how it
computed writes no machine record: such runs pool with each other, with a note, but not with
runs that have one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from leaderboards.errors import LeaderboardError
from leaderboards.layouts import read_suite
from leaderboards.readers import LoadedRun
from run_records import MachineRecord, first_difference

FREE_FIELDS = (
    "name",
    "designers",
    "seeds",
    "designer_options",
    "design_deadline_s",
    "design_deadlines",
)
"""Experiment fields that may differ between runs on one board: which runs, and how long a
design step may take (a step past it is flagged as failed, as any failed step is)."""

MACHINE_FIELDS = ("precision",)
"""Experiment fields that say how a run computed: free only when machines are pooled."""

POOL_HINT = "build one board per machine setup, or pass --pool-machines to pool them anyway"


def shared_experiment(run: LoadedRun, *, pool_machines: bool = False) -> dict[str, Any]:
    """A run's experiment config without the fields a board lets differ."""
    free = (*FREE_FIELDS, "policy") if run.record.kind == "policy" else FREE_FIELDS  # its model
    free = (*free, *MACHINE_FIELDS) if pool_machines else free
    return {k: v for k, v in run.record.experiment.as_dict().items() if k not in free}


def check_compatible(runs: Sequence[LoadedRun], *, pool_machines: bool = False) -> None:
    """Raise `LeaderboardError` unless every run can share one board.

    `pool_machines` lets runs that computed differently (`machine_notes`) share it anyway.
    """
    if not runs:
        raise LeaderboardError("no runs to build a board from")
    _no_duplicates(runs)
    first = runs[0]
    for other in runs[1:]:
        _same_task(first, other)
    for other in runs[1:]:
        _same_suites(first, other)
        for suite in first.record.suites:
            _same_benchmark(first, other, suite)
    by_kind: dict[str, LoadedRun] = {}
    for run in runs:
        anchor = by_kind.setdefault(run.record.kind, run)
        _same_experiment(anchor, run, pool_machines)
    _same_options(runs)
    trained = _trained(runs)
    if not pool_machines:
        for run in trained[1:]:
            _same_machine(trained[0], run)


def require_one_task(runs: Sequence[LoadedRun], what: str) -> None:
    """Refuse, in one line naming two of them, runs of two tasks (or two versions of one) in
    `what` (a bundle): its evidence is judged by one task's rules."""
    for run in runs[1:]:
        _same_task(runs[0], run, f"{what} holds the runs of one task at one version")


def machine_notes(runs: Sequence[LoadedRun], *, pool_machines: bool = False) -> list[str]:
    """What a reader of the board should know about how its runs computed, one line each."""
    notes = []
    trained = _trained(runs)
    unknown = [run.name for run in trained if run.record.machine is None]
    if unknown:
        notes.append(
            f"{len(unknown)} of {len(trained)} trained runs carry no machine record (their "
            f"precision, CPU and kernels are unknown: the backend does not say): {_some(unknown)}"
        )
    if pool_machines:
        setups = {_setup(run.record.machine) for run in trained}
        if len(setups) > 1:
            notes.append(f"pooled runs that computed differently: {'; '.join(sorted(setups))}")
    return notes


def _some(names: list[str], shown: int = 3) -> str:
    """The first few `names`, and how many more: a root of a thousand runs stays one line."""
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


def _no_duplicates(runs: Sequence[LoadedRun]) -> None:
    seen: dict[tuple[str, str, int], LoadedRun] = {}
    for run in runs:
        key = (run.record.kind, run.record.designer, run.record.seed)
        if key in seen:
            raise LeaderboardError(
                f"{seen[key].name} and {run.name} are both {run.record.designer} seed "
                f"{run.record.seed}: pass only one of them"
            )
        seen[key] = run


def _same_task(
    a: LoadedRun,
    b: LoadedRun,
    rule: str = "a board compares designers on one task at one version; build one board per task",
) -> None:
    """Runs of two tasks, or of two versions of one, are judged by different rules: never
    pooled, whatever else they share."""
    if a.task.id != b.task.id:
        raise LeaderboardError(f"{a.name} is a run of task {a.task.id} but {b.name} of "
                               f"{b.task.id}: {rule}")  # fmt: skip


def _same_suites(a: LoadedRun, b: LoadedRun) -> None:
    mine, theirs = sorted(a.record.suites), sorted(b.record.suites)
    if mine != theirs:
        raise LeaderboardError(
            f"{a.name} has benchmark suites {', '.join(mine)} but {b.name} has "
            f"{', '.join(theirs)}: a board compares runs on the same benchmarks"
        )


def _same_benchmark(a: LoadedRun, b: LoadedRun, suite: str) -> None:
    task = a.task
    x, y = a.record.suites[suite], b.record.suites[suite]
    rx, ry = read_suite(task, x), read_suite(task, y)
    if rx.checksum and ry.checksum and rx.checksum != ry.checksum:
        detail = f"manifest checksum {rx.checksum[:12]} vs {ry.checksum[:12]}"
    elif rx.version != ry.version:
        detail = f"suite version {rx.version} vs {ry.version}"
    elif rx.layout.fingerprint != ry.layout.fingerprint:
        detail = f"{len(rx.layout.ids)} vs {len(ry.layout.ids)} instances, or other instance ids"
    else:
        return
    raise LeaderboardError(
        f"{a.name} and {b.name} were scored on different versions of benchmark {suite} "
        f"({detail}): build one board per benchmark version"
    )


def _same_experiment(a: LoadedRun, b: LoadedRun, pool_machines: bool) -> None:
    where = first_difference(
        shared_experiment(a, pool_machines=pool_machines),
        shared_experiment(b, pool_machines=pool_machines),
    )
    if where is None:
        return
    key, mine, theirs = where
    hint = f"; {POOL_HINT}" if key in MACHINE_FIELDS else ": build one board per config"
    raise LeaderboardError(
        f"{a.name} and {b.name} ran different experiments ({key}: {mine!r} vs {theirs!r}); "
        f"a board compares designers under one config{hint}"
    )


def _same_machine(a: LoadedRun, b: LoadedRun) -> None:
    x, y = a.record.machine, b.record.machine
    if x is None and y is None:
        return
    if x is None or y is None:
        known, other = (b, a) if x is None else (a, b)
        raise LeaderboardError(
            f"{other.name} has no machine record (its precision, CPU and kernels are unknown) "
            f"but {known.name} computed with {_setup(known.record.machine)}: {POOL_HINT}"
        )
    where = first_difference(x.pool_key(), y.pool_key())
    if where is not None:
        key, mine, theirs = where
        raise LeaderboardError(
            f"{a.name} and {b.name} computed differently ({key}: {mine!r} vs {theirs!r}), so "
            f"the same seed need not give the same numbers: {POOL_HINT}"
        )


def _trained(runs: Sequence[LoadedRun]) -> list[LoadedRun]:
    """The runs that trained a policy: a zero-shot policy record has no learner to describe."""
    return [run for run in runs if run.record.kind == "designer"]


def _setup(machine: MachineRecord | None) -> str:
    """A machine record's pool key in a few words."""
    if machine is None:
        return "unknown (no machine record)"
    return ", ".join(f"{k} {v}" for k, v in machine.pool_key().items() if v is not None)


def _same_options(runs: Sequence[LoadedRun]) -> None:
    """A designer's options must be the same in all its runs."""
    first: dict[str, LoadedRun] = {}
    for run in runs:
        anchor = first.setdefault(run.record.designer, run)
        mine = _options(anchor)
        theirs = _options(run)
        if mine != theirs:
            raise LeaderboardError(
                f"{anchor.name} and {run.name} ran designer {run.record.designer} with "
                f"different options ({mine!r} vs {theirs!r}): build one board per setting"
            )


def _options(run: LoadedRun) -> dict[str, Any]:
    return run.record.experiment.designer_options.get(run.record.designer, {})
