"""The eight checks: exact failure types, offending agent and time, order, and golden responses.

Golden responses: `tests/golden/responses/<name>.json` hold an instance (optimum checked by hand:
on the 3x3 ring around one hole two agents can only pass by one going the long way), a response
as a list of lines, and the expected verdict fields. One file per failure type plus valid,
optimal, suboptimal and formatting cases.
"""

from __future__ import annotations

import json
from pathlib import Path as FsPath
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mapf_env.instance import Cell, Instance, Objective, Optimum, Plan
from mapf_env.prompt import format_plan
from mapf_env.verifier import AnswerKeyError, FailureType, Verdict, check_plan, verify

GOLDEN = FsPath(__file__).resolve().parents[1] / "golden" / "responses"

TOP: tuple[Cell, ...] = ((0, 0), (0, 1), (0, 2))
ROUND: tuple[Cell, ...] = ((0, 2), (1, 2), (2, 2), (2, 1), (2, 0), (1, 0), (0, 0))


def ring(objective: Objective | None = Objective.SOC) -> Instance:
    """3x3 with a hole in the middle; agents swap the top corners (optimal SOC 8, makespan 6)."""
    optimum = None
    if objective is not None:
        optimum = Optimum(
            objective=objective,
            cost=8 if objective is Objective.SOC else 6,
            soc=8,
            makespan=6,
            individual=(2, 2),
            needs_conflict_resolution=True,
            plan=(TOP, ROUND),
        )
    return Instance(
        grid=("...", ".H.", "..."), starts=((0, 0), (0, 2)), goals=((0, 2), (0, 0)), optimum=optimum
    )


def where(v: Verdict) -> tuple[FailureType | None, int | None, int | None, int | None]:
    return v.failure, v.agent, v.other_agent, v.time


def test_optimal_plan() -> None:
    v = verify(ring(), (TOP, ROUND))
    assert v == Verdict(
        True, None, v.detail, True, 8, 6, 8, 8, optimal_soc=True, optimal_makespan=None
    )


def test_suboptimal_plan_is_valid_not_optimal() -> None:
    v = verify(ring(), (((0, 0), (0, 0), (0, 1), (0, 2)), ROUND))
    assert (v.valid, v.optimal, v.soc, v.cost, v.optimal_cost) == (True, False, 9, 9, 8)


def test_makespan_objective_judges_by_makespan() -> None:
    v = verify(ring(Objective.MAKESPAN), (((0, 0), (0, 0), (0, 1), (0, 2)), ROUND))
    assert (v.valid, v.optimal, v.soc, v.cost) == (True, True, 9, 6)


def test_unknown_optimum_leaves_optimal_none_only_for_valid_plans() -> None:
    assert verify(ring(None), (TOP, ROUND)).optimal is None
    assert verify(ring(None), (TOP,)).optimal is False


def test_trailing_waits_on_the_goal_are_free() -> None:
    v = verify(ring(), ((*TOP, (0, 2), (0, 2)), ROUND))
    assert v.optimal and v.soc == 8


@pytest.mark.parametrize(
    ("plan", "expected"),
    [
        ((TOP,), (FailureType.AGENT_COUNT, None, None, None)),
        ((TOP, ROUND, ROUND), (FailureType.AGENT_COUNT, None, None, None)),
        ((TOP, ()), (FailureType.START, 1, None, 0)),
        ((TOP, ROUND[1:]), (FailureType.START, 1, None, 0)),
        ((((0, 0), (-1, 0), (0, 0), *TOP[1:]), ROUND), (FailureType.BOUNDS, 0, None, 1)),
        ((TOP, ((0, 2), (0, 3), *ROUND)), (FailureType.BOUNDS, 1, None, 1)),
        ((((0, 0), (0, 1), (1, 1), (1, 2), (0, 2)), ROUND), (FailureType.HOLE, 0, None, 2)),
        ((TOP, ((0, 2), (2, 2), *ROUND[3:])), (FailureType.ILLEGAL_MOVE, 1, None, 0)),
        ((((0, 0), (1, 1)), ROUND), (FailureType.HOLE, 0, None, 1)),
        ((TOP, ((0, 2), (0, 1), (0, 0))), (FailureType.CONFLICT, 0, 1, 1)),
        (
            (((0, 0), (0, 0), (0, 1), (0, 2)), ((0, 2), (0, 1), (0, 0))),
            (FailureType.CONFLICT, 0, 1, 1),
        ),
        ((TOP, ROUND[:-1]), (FailureType.GOAL, 1, None, 5)),
        ((TOP[:2], ROUND), (FailureType.GOAL, 0, None, 1)),
    ],
    ids=[
        "too-few",
        "too-many",
        "empty-path",
        "wrong-start",
        "bounds-negative",
        "bounds-right",
        "hole",
        "jump",
        "hole-before-jump",
        "vertex",
        "edge",
        "goal-agent2",
        "goal-agent1",
    ],
)
def test_each_check_names_type_agent_and_time(plan: Plan, expected: tuple[Any, ...]) -> None:
    v = verify(ring(), plan)
    assert where(v) == expected
    assert not v.valid and v.optimal is False and v.soc is None and v.detail


class TestOrder:
    def test_bounds_before_hole_across_agents(self) -> None:
        plan = (((0, 0), (0, 1), (1, 1)), ((0, 2), (0, 3)))
        assert where(verify(ring(), plan))[:2] == (FailureType.BOUNDS, 1)

    def test_start_before_bounds(self) -> None:
        plan = (((0, 0), (0, -1)), ((1, 2), (2, 2)))
        assert verify(ring(), plan).failure is FailureType.START

    def test_illegal_move_before_conflict(self) -> None:
        plan = (((0, 0), (0, 1), (0, 2)), ((0, 2), (0, 1), (0, 0), (2, 0)))
        assert verify(ring(), plan).failure is FailureType.ILLEGAL_MOVE

    def test_conflict_before_goal(self) -> None:
        plan = (((0, 0), (0, 1)), ((0, 2), (0, 1)))
        assert verify(ring(), plan).failure is FailureType.CONFLICT

    def test_agent_parked_off_its_goal_is_a_goal_failure(self) -> None:
        plan = (((0, 0), (0, 1)), ROUND)  # parked on (0,1), never in agent 2's way
        assert where(verify(ring(), plan)) == (FailureType.GOAL, 0, None, 1)

    def test_parked_agent_collides_with_later_arrival(self) -> None:
        plan = (((0, 0), (0, 1)), ((0, 2), (0, 2), (0, 1)))
        assert where(verify(ring(), plan)) == (FailureType.CONFLICT, 0, 1, 2)


def test_response_numbering_gaps_are_agent_count_failures() -> None:
    v = verify(ring(), "Agent 1: (0,0) (0,1) (0,2)\nAgent 3: (0,2) (1,2)")
    assert v.failure is FailureType.AGENT_COUNT and "1, 3" in v.detail


def test_unparsable_response_is_a_parse_failure() -> None:
    v = verify(ring(), "I give up")
    assert (v.valid, v.failure, v.optimal) == (False, FailureType.PARSE, False)


def test_check_plan_accepts_a_solvers_lists() -> None:
    plan = [[list(c) for c in TOP], [list(c) for c in ROUND]]
    assert check_plan(ring(), plan).optimal is True  # type: ignore[arg-type]


def test_plan_cheaper_than_the_answer_key_raises() -> None:
    wrong = ring().model_copy(
        update={"optimum": ring().optimum.model_copy(update={"cost": 9})}  # type: ignore[union-attr]
    )
    with pytest.raises(AnswerKeyError, match="answer key is wrong"):
        verify(wrong, (TOP, ROUND))


@st.composite
def instances(draw: st.DrawFn) -> Instance:
    n = draw(st.integers(3, 5))
    cells = [(r, c) for r in range(n) for c in range(n)]
    k = draw(st.integers(1, 3))
    order = draw(st.permutations(cells))
    ends, rest = order[: 2 * k], order[2 * k :]
    holes = set(draw(st.lists(st.sampled_from(rest), max_size=len(rest) // 3)))
    grid = tuple("".join("H" if (r, c) in holes else "." for c in range(n)) for r in range(n))
    return Instance(grid=grid, starts=tuple(ends[:k]), goals=tuple(ends[k:]))


moves = st.sampled_from([(0, 0), (0, 1), (1, 0), (0, -1), (-1, 0), (1, 1), (0, 2)])


@st.composite
def walks(draw: st.DrawFn, instance: Instance) -> Plan:
    """Mostly-legal random walks from the starts, sometimes snapped to the goal."""
    plan = []
    for start, goal in zip(instance.starts, instance.goals, strict=True):
        path = [start]
        for dr, dc in draw(st.lists(moves, max_size=6)):
            path.append((path[-1][0] + dr, path[-1][1] + dc))
        if draw(st.booleans()):
            path.append(goal)
        plan.append(tuple(path))
    return tuple(plan)


@settings(max_examples=200)
@given(instances(), st.data())
def test_string_and_plan_verdicts_agree_and_valid_iff_no_failure(
    instance: Instance, data: st.DataObject
) -> None:
    plan = data.draw(walks(instance))
    v = verify(instance, plan)
    assert v == verify(instance, format_plan(plan))
    assert v.valid == (v.failure is None)
    assert (v.soc is not None) == v.valid
    if v.failure is not None and v.failure is not FailureType.AGENT_COUNT:
        assert v.agent is not None and 0 <= v.agent < instance.n_agents and v.time is not None


@settings(max_examples=300)
@given(instances(), st.text())
def test_never_raises_on_any_text(instance: Instance, text: str) -> None:
    v = verify(instance, text)
    assert v.valid == (v.failure is None)


def _golden_files() -> list[FsPath]:
    return sorted(GOLDEN.glob("*.json"))


def test_goldens_cover_every_failure_type() -> None:
    seen = {json.loads(f.read_text())["expected"]["failure"] for f in _golden_files()}
    assert seen == {None, *FailureType}


@pytest.mark.parametrize("path", _golden_files(), ids=lambda p: p.stem)
def test_golden_response(path: FsPath) -> None:
    doc = json.loads(path.read_text())
    instance = Instance.model_validate(doc["instance"])
    response = doc["response"]
    v = verify(instance, response if isinstance(response, str) else "\n".join(response))
    got = {key: getattr(v, key) for key in doc["expected"]}
    assert got == doc["expected"], v.detail


def test_each_objective_is_judged_against_its_own_exact_minimum() -> None:
    """On a suite instance whose SOC-optimal plan is not makespan-optimal, the makespan solver's
    plan is makespan-optimal and not SOC-optimal, and the reference plan the other way round."""
    from mapf_env import load_suite, reference_answer, sum_of_costs
    from mapf_env.solver import solve

    for item in load_suite("validation").items:
        key = item.instance.optimum
        assert key is not None and key.min_makespan is not None
        if key.makespan == key.min_makespan:
            continue
        by_span = solve(item.instance.without_optimum(), Objective.MAKESPAN)
        assert by_span.plan is not None
        if sum_of_costs(by_span.plan) == key.cost:
            continue  # this makespan plan happens to be SOC-optimal too
        v = verify(item.instance, by_span.plan)
        assert (v.valid, v.optimal_makespan, v.optimal_soc, v.optimal) == (True, True, False, False)
        ref = verify(item.instance, reference_answer(item.instance))
        assert (ref.optimal_makespan, ref.optimal_soc, ref.optimal) == (False, True, True)
        break
    else:
        pytest.fail("no validation instance separates the two objectives")


def test_plan_below_the_makespan_minimum_raises() -> None:
    key = ring().optimum
    assert key is not None
    wrong = ring().model_copy(update={"optimum": key.model_copy(update={"min_makespan": 7})})
    with pytest.raises(AnswerKeyError, match="makespan 6, below the recorded optimum 7"):
        verify(wrong, (TOP, ROUND))
