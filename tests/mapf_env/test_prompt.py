"""Prompt rendering and the answer format.

Golden prompts: `tests/golden/prompts/<name>.instance.json` are hand-checked inputs (optima verified
by an exact joint search when they were made); `<name>.messages.json` is the expected rendering,
compared byte for byte. After a deliberate prompt change (and a `PROMPT_VERSION` bump), regenerate
the expected files and review the diff:

    MAPF_REGEN_GOLDEN=1 pytest tests/mapf_env/test_prompt.py -k golden
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mapf_env.instance import Instance, Objective, Optimum, Plan
from mapf_env.prompt import (
    ANSWER_FORMAT,
    OBJECTIVE_TEXT,
    SYSTEM_PROMPT,
    format_plan,
    reference_answer,
    render_grid,
    render_prompt,
)

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "prompts"
REGENERATE = os.environ.get("MAPF_REGEN_GOLDEN") == "1"
GOLDEN_NAMES = sorted(p.name.removesuffix(".instance.json") for p in GOLDEN.glob("*.instance.json"))


def _messages_json(instance: Instance) -> str:
    return json.dumps(render_prompt(instance), indent=2, ensure_ascii=False) + "\n"


def _load(name: str) -> Instance:
    return Instance.model_validate_json((GOLDEN / f"{name}.instance.json").read_text("utf-8"))


def _instance(objective: Objective = Objective.SOC) -> Instance:
    plan: Plan = (((0, 0), (0, 1), (0, 2)), ((2, 2), (2, 1), (2, 0)))
    return Instance(
        grid=("...", ".H.", "..."),
        starts=((0, 0), (2, 2)),
        goals=((0, 2), (2, 0)),
        optimum=Optimum(
            objective=objective,
            cost=4 if objective is Objective.SOC else 2,
            soc=4,
            makespan=2,
            individual=(2, 2),
            needs_conflict_resolution=False,
            plan=plan,
        ),
    )


def test_golden_set_covers_the_required_shapes() -> None:
    shapes = {(inst.size, inst.n_agents, bool(inst.holes)) for inst in map(_load, GOLDEN_NAMES)}
    assert {(3, 2, False), (5, 2, True), (7, 3, True), (10, 5, True)} <= shapes


@pytest.mark.parametrize("name", GOLDEN_NAMES)
def test_golden_prompt(name: str) -> None:
    expected = GOLDEN / f"{name}.messages.json"
    rendered = _messages_json(_load(name))
    if REGENERATE:
        expected.write_text(rendered, encoding="utf-8")
    assert expected.exists(), f"missing {expected.name}; run with MAPF_REGEN_GOLDEN=1 once"
    assert rendered == expected.read_text("utf-8"), (
        f"{name}: the prompt changed; if on purpose, bump PROMPT_VERSION and regenerate "
        "(MAPF_REGEN_GOLDEN=1 pytest tests/mapf_env/test_prompt.py -k golden)"
    )


@pytest.mark.parametrize("name", GOLDEN_NAMES)
def test_golden_reference_answer_is_the_plan_in_answer_format(name: str) -> None:
    inst = _load(name)
    assert inst.optimum is not None
    assert _parse(reference_answer(inst)) == inst.optimum.plan


def test_messages_are_system_then_user() -> None:
    messages = render_prompt(_instance())
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[0]["content"] == SYSTEM_PROMPT
    assert all(set(m) == {"role", "content"} for m in messages)


def test_rendering_is_deterministic() -> None:
    inst = _instance()
    copy = Instance.model_validate_json(inst.model_dump_json())
    assert render_prompt(inst) == render_prompt(copy) == render_prompt(inst)


def test_user_message_states_grid_agents_rules_and_format() -> None:
    user = render_prompt(_instance())[1]["content"]
    assert "  0 1 2\n0 . . .\n1 . H .\n2 . . ." in user
    assert "(row,col), 0-indexed; row 0 is the top row" in user
    assert "Agent 1: start (0,0), goal (0,2)" in user
    assert "Agent 2: start (2,2), goal (2,0)" in user
    for phrase in (
        "4-neighbour",
        "WAIT",
        "hole 'H'",
        "inside the grid",
        "same cell at the same time",
        "swapping cells between time t and t+1",
        "stays on its last cell for good",
        "still blocks",
        "sum of costs",
        "Agent 1: (0,0) (0,1) (1,1)",
        "Write nothing after these lines.",
    ):
        assert phrase in user, phrase
    assert "makespan" not in user


def test_makespan_instances_ask_for_makespan() -> None:
    user = render_prompt(_instance(Objective.MAKESPAN))[1]["content"]
    assert OBJECTIVE_TEXT[Objective.MAKESPAN] in user
    assert "sum of costs" not in user


def test_unsolved_instances_get_the_default_objective() -> None:
    user = render_prompt(_instance().without_optimum())[1]["content"]
    assert OBJECTIVE_TEXT[Objective.SOC] in user


def test_grid_labels_pad_two_digit_indices() -> None:
    lines = render_grid(("." * 11,) * 11).splitlines()
    assert lines[0] == "    0  1  2  3  4  5  6  7  8  9 10"
    assert lines[11] == "10  .  .  .  .  .  .  .  .  .  .  ."
    assert len({len(line) for line in lines}) == 1


def test_largest_prompt_fits_the_token_budget() -> None:
    """Max prompt is 1536 tokens in the recipe; chars/4 is the usual English estimate, and grids
    tokenise worse than prose, so demand under half the budget by that estimate."""
    n = 10
    grid = tuple(
        "".join("H" if (r * 7 + c * 3) % 4 == 0 else "." for c in range(n)) for r in range(n)
    )
    free = [(r, c) for r in range(n) for c in range(n) if grid[r][c] == "."]
    inst = Instance(grid=grid, starts=tuple(free[:5]), goals=tuple(free[-5:]))
    chars = sum(len(m["content"]) for m in render_prompt(inst))
    assert chars / 4 < 1536 / 2, chars


def test_format_plan_matches_the_prompt_example() -> None:
    answer = format_plan((((0, 0), (0, 1), (1, 1)),))
    assert answer == "Agent 1: (0,0) (0,1) (1,1)"
    assert answer in ANSWER_FORMAT


def test_format_plan_numbers_agents_from_one_without_trailing_newline() -> None:
    plan: Plan = (((0, 0),), ((1, 1), (1, 1), (1, 2)))
    assert format_plan(plan) == "Agent 1: (0,0)\nAgent 2: (1,1) (1,1) (1,2)"


def test_reference_answer_needs_an_optimum() -> None:
    with pytest.raises(ValueError, match="no optimum"):
        reference_answer(_instance().without_optimum())


_LINE = re.compile(r"Agent (\d+): ((?:\(\d+,\d+\) ?)+)")


def _parse(answer: str) -> Plan:
    """A deliberately tiny independent reader of the answer format (the real parser lives
    elsewhere); it proves `format_plan` writes what the prompt promises."""
    paths = []
    for expected, line in enumerate(answer.split("\n"), 1):
        m = _LINE.fullmatch(line)
        assert m is not None and int(m.group(1)) == expected, line
        paths.append(tuple((int(r), int(c)) for r, c in re.findall(r"\((\d+),(\d+)\)", line)))
    return tuple(paths)


_cell = st.tuples(st.integers(0, 9), st.integers(0, 9))


@given(st.lists(st.lists(_cell, min_size=1, max_size=12).map(tuple), min_size=1, max_size=6))
def test_format_plan_round_trips_through_a_strict_reader(
    paths: list[tuple[tuple[int, int], ...]],
) -> None:
    plan: Plan = tuple(paths)
    assert _parse(format_plan(plan)) == plan


def test_the_response_parser_reads_format_plan() -> None:
    parser = pytest.importorskip("mapf_env.parser")
    plan: Plan = (((0, 0), (0, 0), (0, 1)), ((2, 2), (1, 2)))
    result = parser.parse("<think>Agent 1: (9,9)</think>\n" + format_plan(plan), n_agents=2)
    assert result.paths == plan
