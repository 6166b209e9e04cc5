"""MAPF-FrozenLake's results as boards read them: its three rates and the verdict table of a
suite result.

- `valid`: all eight checks pass (the paper's "acc.").
- `optimal_makespan`: valid and at the exact minimal makespan -- the paper's "opt." (its
  project page: the plan "reaches the optimal makespan" of the ground truth).
- `optimal_soc`: valid and at the exact minimal sum of costs.

A result gives an optimal rate only when its suite version carries that objective's exact
minima (`SuiteResult.optima`); a rate it cannot give is unavailable -- boards show n/a with the
reason, never 0, and never another rate in its place.
"""

from __future__ import annotations

import functools
from operator import attrgetter, itemgetter

from mapf_env import Objective
from tasks.base import BoardRate, VerdictTable
from tasks.mapf_frozenlake.records import SuiteResult
from tasks.mapf_frozenlake.tallies import tally_problem

__all__ = ["BOARD_RATES", "CUT_TITLES", "mapf_result_problem", "mapf_verdict_table"]

BOARD_RATES: tuple[BoardRate, ...] = (
    BoardRate("valid", "valid", "valid", "valid rate: all eight checks pass (the paper's 'acc.')"),
    BoardRate(
        "optimal_makespan",
        "opt. makespan (paper's)",
        "opt. makespan",
        "valid and at the exact minimal makespan: the paper's 'opt.', which its project page "
        "defines by the optimal makespan of the ground truth",
        optimal=Objective.MAKESPAN.value,
    ),
    BoardRate(
        "optimal_soc",
        "opt. SOC",
        "opt. SOC",
        "valid and at the exact minimal sum of costs (SOC)",
        optimal=Objective.SOC.value,
    ),
)

CUT_TITLES = {"size": "map size", "subset": "wait subset", "hole": "hole ratio"}

_FLAGS = {
    "greedy": {"valid": "valid", "optimal_makespan": "optimal_makespan",
               "optimal_soc": "optimal_soc"},
    "best_of": {"valid": "best_of_valid", "optimal_makespan": "best_of_optimal_makespan",
                "optimal_soc": "best_of_optimal_soc"},
}  # fmt: skip
"""The verdict field each rate reads, per kind of answer."""


def mapf_result_problem(result: SuiteResult) -> str | None:
    """A verdict without a flag its suite version carries, or a count the verdicts do not give
    (`tally_problem`); None when the result holds together."""
    for answers, key in _wanted(result):
        field = _FLAGS[answers][key]
        if any(getattr(v, field) is None for v in result.verdicts):
            return _lacking(result, answers, key)
    return tally_problem(result)


def _wanted(result: SuiteResult) -> list[tuple[str, str]]:
    """(kind of answer, rate) of every flag the result's suite version carries."""
    held = {o.value for o in result.optima}
    return [(answers, r.key) for answers in _FLAGS for r in BOARD_RATES
            if r.optimal is None or r.optimal in held]  # fmt: skip


def _lacking(result: SuiteResult, answers: str, key: str) -> str:
    return (
        f"it is of version {result.suite_version} but some verdicts lack their {answers} {key} flag"
    )


def mapf_verdict_table(result: SuiteResult) -> VerdictTable:
    """`result` item by item; ValueError, a phrase about the suite, when a verdict lacks a flag
    its suite version carries. A board reads every verdict of every run here, so each field is
    read in one pass and transposed into columns."""
    wanted = _wanted(result)
    fields = attrgetter("id", "size", "subset", "hole_ratio", "failure",
                        *(_FLAGS[answers][key] for answers, key in wanted))  # fmt: skip
    columns = list(zip(*sorted(map(fields, result.verdicts), key=itemgetter(0)), strict=True)) or [
        ()
    ] * (5 + len(wanted))
    flags: dict[str, dict[str, tuple[bool, ...]]] = {answers: {} for answers in _FLAGS}
    for (answers, key), values in zip(wanted, columns[5:], strict=True):
        if None in values:
            raise ValueError(_lacking(result, answers, key))
        flags[answers][key] = values
    return VerdictTable(
        ids=columns[0],
        cuts={
            "size": tuple(map(_size_key, columns[1])),
            "subset": columns[2],
            "hole": tuple(map(_hole_key, columns[3])),
        },
        flags=flags,
        failures=columns[4],
        unavailable={
            r.key: _unavailable(result, r) for r in BOARD_RATES if r.key not in flags["greedy"]
        },
        version=result.suite_version,
        checksum=result.content_sha256,
    )


@functools.lru_cache(maxsize=64)
def _size_key(size: int) -> str:
    """A size as boards key it (``7``): made once per size, for every item of every run."""
    return str(size)


@functools.lru_cache(maxsize=256)
def _hole_key(hole_ratio: float) -> str:
    """A hole ratio as boards key it (``0.3``)."""
    return f"{hole_ratio:g}"


def _unavailable(result: SuiteResult, rate: BoardRate) -> str:
    """Why `rate` reads n/a for `result`, following "n/a: the <suites> "."""
    held = "/".join(o.value.upper() for o in result.optima) or "no"
    name = "SOC" if rate.optimal == Objective.SOC.value else "makespan"
    return (
        f"records are of suite version {result.suite_version} ({held} optima only): they "
        f"hold no exact minimal {name}, so no {name}-optimal rate; runs scored on suite version "
        "2 have it."
    )
