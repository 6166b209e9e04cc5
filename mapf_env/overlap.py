"""Which puzzles two sets of instances share: what keeps a validation suite off the benchmarks.

A validation signal read after every round must not be a glimpse of the test: a designer that
tuned on it would be tuning on benchmark instances. Two instances are the same puzzle when
they have the same grid and the same (start, goal) pairs, in any agent order (renumbering the
agents changes no plan's cost), whatever their ids or answer keys; `puzzle_key` is that
identity, a strictly wider net than equal grids, starts and goals.
"""

from __future__ import annotations

from collections.abc import Iterable

from mapf_env.instance import Cell, Instance

PuzzleKey = tuple[tuple[str, ...], frozenset[tuple[Cell, Cell]]]
"""An instance's grid and its agents' (start, goal) pairs, agent order left out."""


class SuiteOverlapError(RuntimeError):
    """A suite holds a puzzle of a suite it must be disjoint from."""


def puzzle_key(instance: Instance) -> PuzzleKey:
    """`instance` as a puzzle: its grid and its (start, goal) pairs in any agent order."""
    return instance.grid, frozenset(zip(instance.starts, instance.goals, strict=True))


def shared_puzzles(
    instances: Iterable[Instance], others: Iterable[Instance]
) -> list[tuple[str, str]]:
    """(instance id, other id) for every instance of `instances` that is a puzzle of `others`."""
    seen = {puzzle_key(other): other.id or "?" for other in others}
    return [
        (instance.id or "?", seen[key])
        for instance in instances
        if (key := puzzle_key(instance)) in seen
    ]


def check_disjoint(name: str, instances: Iterable[Instance], others: Iterable[Instance]) -> None:
    """Raise `SuiteOverlapError` naming every puzzle suite `name` shares with `others`."""
    shared = shared_puzzles(instances, others)
    if shared:
        pairs = ", ".join(f"{mine} = {theirs}" for mine, theirs in shared[:5])
        more = f" and {len(shared) - 5} more" if len(shared) > 5 else ""
        raise SuiteOverlapError(
            f"suite {name} shares {len(shared)} puzzle(s) with the suites it must be disjoint "
            f"from ({pairs}{more}); its seeds come from its name: rename it or change its spec"
        )
