"""From runs to a `Board`: the paper's Sum per designer and suite, with seeds and intervals.

"Sum" is the paper's headline: per suite (MAPF: agent count), the mean over the values of the
task's first cut (MAPF: map sizes) of the per-value rate; a designer's cell is the mean of its
seeds' Sums, the overall column the mean over suites. Detail cuts (any value of any of the
task's cuts; MAPF: a size, a wait subset, a hole ratio) are the mean over the cut's strata of
the per-stratum rate. Every cell holds each of the task's rates (`Task.board_rates`); a rate
the suite cannot give is None (the overall column too, when any suite lacks it). Intervals and
deltas follow `leaderboards.bootstrap`.
Each ranked designer's row, detail cells, rliable rows and curves are its part
(`leaderboards.designer_parts`, one process per CPU when many); `leaderboards.board_statistics`
then adds what combines designers (the controls, the detectable difference) and the board is
assembled in the rows' order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from envdesign_common import git_commit, package_version
from leaderboards.board import (
    Answers,
    Board,
    BootstrapSpec,
    Cut,
    DesignerRow,
    DesignFailures,
    RunRef,
    SuiteInfo,
    UnrankedRow,
)
from leaderboards.board_statistics import board_statistics
from leaderboards.bootstrap import (
    BOOTSTRAP_SEED,
    CONFIDENCE,
    METHOD,
    RESAMPLES,
)
from leaderboards.compat import check_compatible, shared_experiment
from leaderboards.costs import cost_row
from leaderboards.design_steps import design_failures, unranked_note
from leaderboards.designer_parts import Flags, designer_parts
from leaderboards.errors import LeaderboardError
from leaderboards.failures import failure_rows
from leaderboards.groups import Group, is_ranked, make_groups
from leaderboards.layouts import read_suite
from leaderboards.readers import LoadedRun
from leaderboards.reference import load_reference
from tasks import DEFAULT_TASK, Task, family_of


def build_board(
    runs: Sequence[LoadedRun],
    *,
    baseline: str | None = "random",
    strict_baseline: bool = False,
    answers: Answers = "greedy",
    resamples: int = RESAMPLES,
    reference: bool = False,
    details: Sequence[Cut] | None = None,
    pool_machines: bool = False,
) -> Board:
    """The board of `runs` (checked compatible); deltas against `baseline` when it is present.

    With `strict_baseline`, a baseline missing from the runs is an error rather than a note.
    `details` are the cuts computed (None: all the task's; each costs bootstrap time); the
    paper's `reference` figures are MAPF-FrozenLake's, refused for another task. A designer whose
    design steps all failed is left out of the rows (`Board.unranked` says why) unless its runs
    allowed it; one with some failed steps is ranked and flagged (`leaderboards.design_steps`).
    `pool_machines` pools runs that computed differently (`leaderboards.compat`).
    """
    check_compatible(runs, pool_machines=pool_machines)
    task = runs[0].task
    cuts = task.cuts if details is None else [c for c in task.cuts if c in details]
    unknown = [c for c in details or () if c not in task.cuts]
    if unknown:
        raise LeaderboardError(
            f"{task.id} has no cut {unknown[0]!r}; its cuts are {', '.join(task.cuts)}"
        )
    if reference and family_of(task.id) != family_of(DEFAULT_TASK):
        raise LeaderboardError(
            f"the paper's reported figures are MAPF-FrozenLake's; these runs are of {task.id}: "
            "drop --reference"
        )
    groups = make_groups(runs, answers, resamples)
    flags = {(g.kind, g.designer): design_failures([r.record for r in g.runs]) for g in groups}
    ranked = [g for g in groups if is_ranked(flags[g.kind, g.designer])]
    unranked = [
        _unranked(g, f) for g in groups if (f := flags[g.kind, g.designer]) and not f.ranked
    ]
    suites = list(runs[0].record.suites)
    base = next((g for g in ranked if g.designer == baseline), None)
    note = _baseline_note(baseline, base, groups, flags, strict_baseline)
    parts = dict(zip(map(id, ranked), designer_parts(ranked, base, flags, suites, resamples,
                                                     cuts), strict=True))  # fmt: skip
    in_rows = sorted(ranked, key=lambda g: _rank(parts[id(g)].row))
    mine = [parts[id(g)] for g in in_rows]
    statistics = board_statistics(in_rows, [p.statistics for p in mine], [p.drawn for p in mine],
                                  suites, resamples)  # fmt: skip
    return Board(
        task=task.id,
        rates=task.board_rates,
        cut_titles={cut: task.cut_titles.get(cut, cut) for cut in task.cuts},
        package_version=package_version(),
        git_commit=git_commit(),
        answers=answers,
        baseline=baseline if base is not None else None,
        baseline_note=note,
        experiment=shared_experiment(runs[0], pool_machines=pool_machines),
        suites=tuple(_suite_info(task, runs[0], name) for name in suites),
        bootstrap=BootstrapSpec(
            resamples=resamples, confidence=CONFIDENCE, rng_seed=BOOTSTRAP_SEED, method=METHOD
        ),
        runs=tuple(_run_ref(run) for g in groups for run in g.runs),
        rows=tuple(p.row for p in mine),
        unranked=tuple(unranked),
        detail_cuts=tuple(cuts),
        details=tuple(d for g in ranked for d in parts[id(g)].details),
        failures=tuple(f for g in ranked for f in failure_rows(g.designer, g.runs, suites)),
        costs=tuple(cost_row(g.designer, [r.record for r in g.runs]) for g in groups),
        reference=load_reference() if reference else None,
        **statistics,
    )


def _rank(row: DesignerRow) -> tuple[str, float, str]:
    """Rows by kind, then best overall valid rate first."""
    valid = row.overall.get("valid")
    return (row.kind, -(valid.mean if valid is not None else 0.0), row.designer)


def _unranked(g: Group, flag: DesignFailures) -> UnrankedRow:
    return UnrankedRow(designer=g.designer, kind=g.runs[0].record.kind, seeds=g.seeds,
                       design_failures=flag, note=unranked_note(g.designer, flag))  # fmt: skip


def _baseline_note(
    baseline: str | None, base: Group | None, groups: list[Group], flags: Flags, strict: bool
) -> str | None:
    if baseline is None or base is not None:
        return None
    left_out = [f for (_, name), f in flags.items() if name == baseline and f is not None]
    if left_out:
        message = f"baseline {baseline!r} is not ranked ({left_out[0].summary})"
        hint = "pass --baseline with a ranked designer"
    else:
        names = ", ".join(sorted({g.designer for g in groups}))
        message = f"baseline {baseline!r} is not among the runs (designers: {names})"
        hint = "pass --baseline with one of them"
    if strict:
        raise LeaderboardError(f"{message}; {hint}")
    return f"{message}: no deltas"


def _suite_info(task: Task[Any, Any], run: LoadedRun, name: str) -> SuiteInfo:
    read = read_suite(task, run.record.suites[name])
    return SuiteInfo(
        name=name,
        strata=tuple(read.layout.keys(read.layout.first)),
        instances=len(read.layout.ids),
        suite_version=read.version,
        content_sha256=read.checksum,
        unavailable=dict(read.unavailable),
    )


def _run_ref(run: LoadedRun) -> RunRef:
    r = run.record
    return RunRef(
        path=run.name,
        designer=r.designer,
        seed=r.seed,
        package_version=r.package_version,
        git_commit=r.git_commit,
    )
