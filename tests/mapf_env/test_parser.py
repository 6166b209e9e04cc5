"""The answer parser: tolerant formats, reasoning stripping, block choice, and never raising."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from envdesign_common.think_tags import strip_think
from mapf_env.instance import Plan
from mapf_env.parser import ParseResult, parse
from mapf_env.prompt import format_plan

A1 = "Agent 1: (0,0) (0,1) (1,1)"
A2 = "Agent 2: (2,2) (2,1)"
PLAN: Plan = (((0, 0), (0, 1), (1, 1)), ((2, 2), (2, 1)))


def paths(text: str, n: int = 2) -> Plan | None:
    return parse(text, n).paths


@pytest.mark.parametrize(
    "text",
    [
        f"{A1}\n{A2}",
        f"{A1}\r\n{A2}\r\n",
        "Agent 1: [(0,0), (0,1), (1,1)]\nAgent 2: [(2,2), (2,1)]",
        "Agent 1: (0, 0) -> (0, 1) -> (1, 1)\nAgent 2: (2,2)->(2,1)",
        "Agent 1: (0,0), (0,1), (1,1)\nAgent 2: (2,2), (2,1).",
        "Agent 1: (0,0) → (0,1) → (1,1)\nAgent 2: (2,2) => (2,1)",
        "Agent 1: [[0,0],[0,1],[1,1]]\nAgent 2: [[2,2],[2,1]]",
        "```\nAgent 1: (0,0) (0,1) (1,1)\nAgent 2: (2,2) (2,1)\n```",
        "```text\nAgent 1: (0,0) (0,1) (1,1)\n\nAgent 2: (2,2) (2,1)\n```",
        "**Agent 1:** (0,0) (0,1) (1,1)\n**Agent 2**: (2,2) (2,1)",
        "- Agent 1: `(0,0) (0,1) (1,1)`\n- Agent 2: `(2,2) (2,1)`",
        "1. Agent 1: (0,0) (0,1) (1,1)\n2. Agent 2: (2,2) (2,1)",
        "| Agent 1 | (0,0) (0,1) (1,1) |\n| Agent 2 | (2,2) (2,1) |",
        "### Agent 1\n(0,0) (0,1)\n(1,1)\n### Agent 2\n(2,2) (2,1)",
        "agent_1: (0,0) (0,1) (1,1)\nAGENT #2 path = (2,2) (2,1)",
        "Agent 1's path: (0,0) (0,1) (1,1)\nAgent 2's path: (2,2) (2,1)",
        "   Agent 1 (0,0) (0,1) (1,1)\n\tAgent 2 (2,2) (2,1)   ",
        "Agent 0: (0,0) (0,1) (1,1)\nAgent 1: (2,2) (2,1)",
        "Agent 2: (2,2) (2,1)\nAgent 1: (0,0) (0,1) (1,1)",
    ],
)
def test_tolerated_formats_read_the_same_plan(text: str) -> None:
    assert paths(text) == PLAN


def test_numbering_base_and_numbers_are_reported() -> None:
    one = parse(f"{A1}\n{A2}", 2)
    zero = parse("Agent 0: (0,0)\nAgent 1: (1,1)", 2)
    assert (one.base, one.numbers) == (1, (1, 2))
    assert (zero.base, zero.numbers, zero.paths) == (0, (0, 1), (((0, 0),), ((1, 1),)))


def test_negative_and_large_coordinates_parse_so_bounds_can_judge_them() -> None:
    assert paths("Agent 1: (0,0) (-1,0) (0,12)", 1) == (((0, 0), (-1, 0), (0, 12)),)


class TestThink:
    def test_closed_think_is_removed(self) -> None:
        text = f"<think>Agent 1: (9,9)\nAgent 2: (9,8)</think>\n{A1}\n{A2}"
        assert paths(text) == PLAN

    def test_unclosed_think_hides_everything_after_it(self) -> None:
        result = parse(f"<think>\n{A1}\n{A2}\nhmm", 2)
        assert result.paths is None and not result.ok

    def test_text_before_an_unclosed_think_still_counts(self) -> None:
        assert paths(f"{A1}\n{A2}\n<THINK> second thoughts (0,0)") == PLAN

    def test_orphan_close_keeps_only_what_follows(self) -> None:
        text = f"Agent 1: (5,5)\nAgent 2: (6,6)\n</think>\n{A1}\n{A2}"
        assert paths(text) == PLAN

    def test_nested_and_repeated_tags(self) -> None:
        text = f"<think>a<think>b</think>c</think>\n{A1}\n<Think>x</THINK>\n{A2}"
        assert paths(text) == PLAN

    def test_many_unclosed_tags_take_linear_time(self) -> None:
        start = time.perf_counter()
        assert parse("<think>" * 20_000 + A1, 1).paths is None
        assert time.perf_counter() - start < 0.5

    def test_strip_think_without_tags_is_identity(self) -> None:
        assert strip_think("plain (0,0)") == "plain (0,0)"


class TestBlocks:
    def test_last_complete_attempt_wins(self) -> None:
        text = "Agent 1: (0,0)\nAgent 2: (0,1)\nThat collides; again:\n" + f"{A1}\n{A2}"
        assert paths(text) == PLAN

    def test_trailing_fragment_does_not_override_a_complete_answer(self) -> None:
        text = f"{A1}\n{A2}\nDouble-check:\nAgent 1: (0,0) (0,1)"
        assert paths(text) == PLAN

    def test_too_many_agents_in_the_last_block_reaches_the_verifier(self) -> None:
        text = f"{A1}\n{A2}\nFinal:\n{A1}\n{A2}\nAgent 3: (1,1)"
        result = parse(text, 2)
        assert result.numbers == (1, 2, 3) and result.paths is not None

    def test_no_complete_block_returns_the_last_so_the_count_is_judged(self) -> None:
        result = parse("Agent 1: (5,5)\nprose\nAgent 2: (2,2)", 2)
        assert result.numbers == (2,) and result.paths == (((2, 2),),)

    def test_repeated_agent_in_one_block_last_line_wins(self) -> None:
        text = f"Agent 1: (7,7)\n{A2}\n{A1}"
        assert paths(text) == PLAN

    def test_repeated_agent_overrides_a_malformed_line(self) -> None:
        text = f"Agent 1: (0,0) WAIT (0,1)\n{A2}\n{A1}"
        assert paths(text) == PLAN

    def test_prose_starting_with_agent_is_not_an_answer_line(self) -> None:
        text = f"{A1}\n{A2}\nAgent 1 starts at (0,0) and must reach (1,1)."
        assert paths(text) == PLAN

    def test_prompt_style_agent_listing_is_prose(self) -> None:
        text = f"Agent 1: start (0,0), goal (1,1)\nAgent 2: start (2,2), goal (2,1)\n{A1}\n{A2}"
        assert paths(text) == PLAN


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "no 'Agent"),
        ("I would move right twice.", "no 'Agent"),
        ("Agent 1: (0,0) WAIT (0,1)\n" + A2, "malformed"),
        ("Agent 1: (0,0) (0,1) # then stay\n" + A2, "malformed"),
        ("Agent 1:\n" + A2, "no cells"),
        ("Agent 1: (0,0) (1234567,0)\n" + A2, "malformed"),
    ],
)
def test_parse_failures_say_why(text: str, fragment: str) -> None:
    result = parse(text, 2)
    assert result.paths is None and result.error is not None and fragment in result.error


cells = st.tuples(st.integers(-999_999, 999_999), st.integers(-999_999, 999_999))
plans = st.lists(st.lists(cells, min_size=1, max_size=8).map(tuple), min_size=1, max_size=6).map(
    tuple
)


@given(plans, st.sampled_from([0, 1]))
def test_format_then_parse_round_trips(plan: Plan, base: int) -> None:
    result = parse(format_plan(plan, base), len(plan))
    assert result == ParseResult(plan, tuple(range(base, base + len(plan))), base)


@given(plans)
def test_round_trips_the_prompt_modules_answer_format(plan: Plan) -> None:
    from mapf_env.prompt import format_plan

    assert parse(format_plan(plan), len(plan)).paths == plan


@settings(max_examples=300)
@given(st.text(), st.integers(-3, 12))
def test_never_raises_on_any_text(text: str, n: int) -> None:
    result = parse(text, n)
    assert (result.paths is None) == (result.error is not None)


_ALPHABET = "Agent 0123456789(),[]-> :\n\t*`<think></think>WAIT#|."


@settings(max_examples=300)
@given(plans, st.data())
def test_never_raises_on_mutated_answers(plan: Plan, data: st.DataObject) -> None:
    text = list(format_plan(plan))
    for _ in range(data.draw(st.integers(1, 6))):
        op = data.draw(st.sampled_from(["insert", "delete", "replace"]))
        pos = data.draw(st.integers(0, max(0, len(text) - 1)))
        char = data.draw(st.sampled_from(_ALPHABET))
        if op == "insert":
            text.insert(pos, char)
        elif text and op == "delete":
            del text[pos]
        elif text:
            text[pos] = char
    result = parse("".join(text), len(plan))
    assert result.ok == (result.paths is not None)
    if result.paths is not None:
        assert all(len(p) > 0 for p in result.paths)
