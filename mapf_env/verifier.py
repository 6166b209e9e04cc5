"""Judge an answer -- a response string or a solver's plan -- against an instance.

Eight checks run in a fixed order and the first that fails names the failure, so every invalid
answer has exactly one failure type and the failure breakdowns the designers read add up:

=============  =============================================================================
parse          the response holds a readable answer (see `mapf_env.parser`)
agent_count    one path per agent, numbered 1..k (or 0..k-1) without gaps or extras
start          every path starts on its agent's start cell (an empty path fails here)
bounds         every cell lies on the grid
hole           no cell is a hole
illegal_move   consecutive cells are at Manhattan distance <= 1 (staying put is a WAIT)
conflict       no vertex or edge conflict (`mapf_env.paths.first_conflict`)
goal           every path ends on its agent's goal
=============  =============================================================================

Checks run check by check over all agents (all starts, then all bounds, ...), so an answer with
one agent off the grid and another in a hole is a *bounds* failure. Within one check the lowest
agent index, then the earliest time, is reported. `Verdict.agent` is a 0-based index into
``instance.starts``; the human `Verdict.detail` names agents 1-based, as the prompt does.
Times are path indices; a move or an edge conflict between t and t+1 is reported at t.

A valid answer is judged against each exact minimum the answer key carries: `optimal` under the
key's own objective (the one the prompt asks for and the reward pays), and `optimal_soc` /
`optimal_makespan` under each objective separately (the paper's optimal rate is the makespan
one). A valid plan cheaper than a recorded minimum cannot exist if the answer key is right, so
the verifier raises `AnswerKeyError` instead of returning a verdict: every optimal rate measured
against that key would be wrong, and a run should stop rather than train on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from itertools import pairwise

from mapf_env.instance import Cell, Instance, Objective, Plan
from mapf_env.parser import ParseResult, parse
from mapf_env.paths import first_conflict, path_cost

__all__ = ["AnswerKeyError", "FailureType", "Verdict", "check_plan", "verify"]


class FailureType(StrEnum):
    """The eight checks, in the order they run."""

    PARSE = "parse"
    AGENT_COUNT = "agent_count"
    START = "start"
    BOUNDS = "bounds"
    HOLE = "hole"
    ILLEGAL_MOVE = "illegal_move"
    CONFLICT = "conflict"
    GOAL = "goal"


class AnswerKeyError(ValueError):
    """A valid plan beats the recorded optimum: the instance's answer key is corrupt."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcome of the eight checks for one answer.

    A frozen slots dataclass, not a pydantic model: the verifier builds one per rollout (tens of
    thousands per training step) and every field is computed here, so validation would only add
    cost. `soc`, `makespan` and `cost` are set only for valid plans, so a batch average never
    mixes in the cost of an answer that broke the rules. `optimal` is None only when the plan is
    valid but the instance carries no optimum (nothing to compare with); an invalid answer is
    never optimal, known optimum or not.
    """

    valid: bool
    failure: FailureType | None
    detail: str
    optimal: bool | None = False
    soc: int | None = None
    makespan: int | None = None
    cost: int | None = None
    """The plan's value under the optimum's objective (SOC when no optimum is known)."""
    optimal_cost: int | None = None
    """``instance.optimum.cost``, copied so a verdict alone tells the cost gap."""
    optimal_soc: bool | None = False
    """Valid and its SOC is the exact minimal SOC; None for a valid plan whose instance has no
    known minimal SOC (an invalid answer is never optimal: False)."""
    optimal_makespan: bool | None = False
    """Valid and its makespan is the exact minimal makespan (the paper's "optimal"); None as
    for `optimal_soc`."""
    agent: int | None = None
    """0-based index of the offending agent; the lower one of a conflicting pair."""
    other_agent: int | None = None
    """The second agent of a conflict; None for every other failure."""
    time: int | None = None
    """Path index where the failure happens (for a move or an edge conflict, its start t)."""


def _fail(
    failure: FailureType,
    detail: str,
    agent: int | None = None,
    time: int | None = None,
    other_agent: int | None = None,
) -> Verdict:
    return Verdict(False, failure, detail, agent=agent, other_agent=other_agent, time=time)


def _check_count(instance: Instance, plan: Plan, numbers: tuple[int, ...] | None) -> Verdict | None:
    k = instance.n_agents
    if len(plan) != k:
        return _fail(
            FailureType.AGENT_COUNT,
            f"answer has {len(plan)} agent path(s); the instance has {k} agents",
        )
    if numbers is not None:
        base = 0 if numbers[0] == 0 else 1
        if numbers != tuple(range(base, base + k)):
            listed = ", ".join(map(str, numbers))
            msg = f"agents numbered {listed}; expected {base}..{base + k - 1}"
            return _fail(FailureType.AGENT_COUNT, msg)
    return None


def _check_starts(instance: Instance, plan: Plan) -> Verdict | None:
    for i, (path, start) in enumerate(zip(plan, instance.starts, strict=True)):
        if not path:
            return _fail(FailureType.START, f"Agent {i + 1} has an empty path", i, 0)
        if path[0] != start:
            msg = f"Agent {i + 1} starts at {path[0]}, not at its start {start}"
            return _fail(FailureType.START, msg, i, 0)
    return None


@cache
def _board(n: int) -> frozenset[Cell]:
    """Every cell of an n x n grid, so that bounds are one C-level subset test per plan."""
    return frozenset((r, c) for r in range(n) for c in range(n))


def _check_cells(instance: Instance, plan: Plan) -> Verdict | None:
    """Bounds for every agent, then holes; set tests first, the cell-by-cell search only to
    name the offending agent and time once something is known to be wrong."""
    n = instance.size
    used = set().union(*plan)
    holes = instance.holes
    if used <= _board(n) and used.isdisjoint(holes):
        return None
    for i, path in enumerate(plan):
        for t, (r, c) in enumerate(path):
            if not (0 <= r < n and 0 <= c < n):
                msg = f"Agent {i + 1} leaves the {n}x{n} grid at t={t}: {(r, c)}"
                return _fail(FailureType.BOUNDS, msg, i, t)
    for i, path in enumerate(plan):
        for t, cell in enumerate(path):
            if cell in holes:
                msg = f"Agent {i + 1} falls into the hole {cell} at t={t}"
                return _fail(FailureType.HOLE, msg, i, t)
    raise AssertionError("unreachable: a cell failed the set test but no check")  # pragma: no cover


def _check_moves(plan: Plan) -> Verdict | None:
    for i, path in enumerate(plan):
        for t, ((r0, c0), (r1, c1)) in enumerate(pairwise(path)):
            if abs(r0 - r1) + abs(c0 - c1) > 1:
                msg = f"Agent {i + 1} jumps from {path[t]} to {path[t + 1]} at t={t}"
                return _fail(FailureType.ILLEGAL_MOVE, msg, i, t)
    return None


def _check_conflicts_and_goals(instance: Instance, plan: Plan) -> Verdict | None:
    conflict = first_conflict(plan)
    if conflict is not None:
        a, b = conflict.agents
        if conflict.kind == "vertex":
            msg = f"Agents {a + 1} and {b + 1} are both on {conflict.cell} at t={conflict.time}"
        else:
            msg = (
                f"Agents {a + 1} and {b + 1} swap {conflict.cell} and {conflict.other_cell} "
                f"between t={conflict.time} and t={conflict.time + 1}"
            )
        return _fail(FailureType.CONFLICT, msg, a, conflict.time, b)
    for i, (path, goal) in enumerate(zip(plan, instance.goals, strict=True)):
        if path[-1] != goal:
            msg = f"Agent {i + 1} ends on {path[-1]}, not on its goal {goal}"
            return _fail(FailureType.GOAL, msg, i, len(path) - 1)
    return None


def _valid(instance: Instance, plan: Plan) -> Verdict:
    costs = [path_cost(p) for p in plan]  # once, not once per statistic
    soc, span = sum(costs), max(costs)
    optimum = instance.optimum
    if optimum is None:
        return Verdict(
            True,
            None,
            f"valid (SOC {soc}, makespan {span}; no optimum known)",
            None,
            soc,
            span,
            soc,
            optimal_soc=None,
            optimal_makespan=None,
        )
    minima = {objective: optimum.minimum(objective) for objective in Objective}
    minima[optimum.objective] = optimum.cost  # the key's own objective: `cost` is authoritative
    best_soc, best_span = minima[Objective.SOC], minima[Objective.MAKESPAN]
    for objective, value, best in (("soc", soc, best_soc), ("makespan", span, best_span)):
        if best is not None and value < best:
            raise AnswerKeyError(
                f"instance {instance.id or '<unnamed>'}: a valid plan has {objective} {value}, "
                f"below the recorded optimum {best}; the answer key is wrong -- re-solve "
                f"the instance and check the solver. Plan: {plan}"
            )
    cost = soc if optimum.objective is Objective.SOC else span
    optimal = cost == optimum.cost
    detail = f"valid, {optimum.objective} {cost} vs optimum {optimum.cost}" + (
        " (optimal)" if optimal else f" (+{cost - optimum.cost})"
    )
    return Verdict(
        True,
        None,
        detail,
        optimal,
        soc,
        span,
        cost,
        optimum.cost,
        optimal_soc=None if best_soc is None else soc == best_soc,
        optimal_makespan=None if best_span is None else span == best_span,
    )


def _as_plan(plan: Sequence[Sequence[Cell]]) -> Plan:
    """Tuples all the way down, so a solver's lists compare equal to the instance's tuples."""
    return tuple(tuple((int(cell[0]), int(cell[1])) for cell in p) for p in plan)


def check_plan(
    instance: Instance,
    plan: Sequence[Sequence[Cell]],
    numbers: tuple[int, ...] | None = None,
) -> Verdict:
    """Run checks 2-8 on a plan; the entry point for checking a solver's output.

    `numbers` are the agent numbers a response used (see `ParseResult.numbers`); leave it None
    for a plan given in agent order.
    """
    return _judge(instance, _as_plan(plan), numbers)


def _judge(instance: Instance, p: Plan, numbers: tuple[int, ...] | None) -> Verdict:
    failure = (
        _check_count(instance, p, numbers)
        or _check_starts(instance, p)
        or _check_cells(instance, p)
        or _check_moves(p)
        or _check_conflicts_and_goals(instance, p)
    )
    return failure if failure is not None else _valid(instance, p)


def verify(instance: Instance, response: str | Sequence[Sequence[Cell]]) -> Verdict:
    """Run the eight checks on a response string or a plan; never raises on a string.

    The one exception is `AnswerKeyError`, raised for a valid plan cheaper than the optimum.
    """
    if not isinstance(response, str):
        return check_plan(instance, response)
    parsed: ParseResult = parse(response, instance.n_agents)
    if parsed.paths is None:
        return _fail(FailureType.PARSE, parsed.error or "unreadable answer")
    return _judge(instance, parsed.paths, parsed.numbers)
