"""Answer -> change set: fences, reasoning, hostile YAML, and a 10,000-answer fuzz.

The fuzz is the contract with the training loop: whatever a model writes, output handling
returns either a usable projection or an error string -- never an exception -- and a usable
projection is always a legal configuration that `project` leaves unchanged.
"""

from __future__ import annotations

import math
import random
import time

import pytest

from designers.llm.extract import (
    MAX_ANSWER_CHARS,
    ExtractError,
    Extraction,
    extract,
    try_extract,
    yaml_block,
)
from mapf_env import SIZES, EnvConfig, project
from tests.designers.openai_server import scripted_good_answer

BASE = EnvConfig.uniform()


def test_good_answer() -> None:
    found = extract(scripted_good_answer(), BASE)
    assert found.changes == {"7x7": {"ratio": 0.2, "hole_ratio": 0.3}, "10x10": {"wait_ratio": 0.4}}
    assert found.projection.config.sizes[7].hole_ratio == 0.3


def test_last_yaml_block_wins_and_think_is_ignored() -> None:
    answer = (
        "<think>```yaml\n3x3: {ratio: 0.9}\n```</think>"
        "Draft:\n```yaml\n4x4: {ratio: 0.5}\n```\nFinal:\n```yaml\n5x5: {hole_ratio: 0.1}\n```"
    )
    assert extract(answer, BASE).changes == {"5x5": {"hole_ratio": 0.1}}


def test_plain_fence_and_bare_yaml() -> None:
    assert yaml_block("x\n```\n6x6: {ratio: 0.3}\n```") == "6x6: {ratio: 0.3}\n"
    assert extract("8x8:\n  wait_ratio: 0.2\n", BASE).changes == {"8x8": {"wait_ratio": 0.2}}


def test_unclosed_fence_takes_the_rest() -> None:
    assert extract("```yaml\n9x9:\n  ratio: 0.3\n", BASE).changes == {"9x9": {"ratio": 0.3}}


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ("no yaml here", "mapping"),
        ("```yaml\n```", "no YAML"),
        ("```yaml\n7x7: [1, 2\n```", "not valid YAML"),
        ("```yaml\n!!python/object/apply:os.system ['echo hi']\n```", "tags"),
        ("```yaml\n7x7: !!python/name:os.system\n```", "tags"),
        ("```yaml\na: &a [1,1]\nb: &b [*a,*a]\nc: [*b,*b]\n```", "aliases"),
        ("```yaml\n7x7: {ratio: .nan}\n```", "finite"),
        ("```yaml\n7x7: {ratio: high}\n```", "number"),
        ("```yaml\n7x7: {ration: 0.2}\n```", "ratio"),
        ("```yaml\n11x11: {ratio: 0.2}\n```", "11"),
        ("```yaml\n- 1\n- 2\n```", "mapping"),
        ("```yaml\n" + "a: [" * 50 + "]" * 50 + "\n```", "nested"),
        ("x" * (MAX_ANSWER_CHARS + 1), "characters"),
        ("y" * 10_000_000, "too long"),
    ],
)
def test_bad_answers_are_errors(answer: str, message: str) -> None:
    with pytest.raises(ExtractError, match=message):
        extract(answer, BASE)
    result = try_extract(answer, BASE)
    assert isinstance(result, str) and message.lower() in result.lower()


def test_huge_and_negative_values_are_projected() -> None:
    found = extract("```yaml\n3x3: {ratio: -5, hole_ratio: 9, wait_ratio: -1}\n```", BASE)
    config = found.projection.config
    assert config.sizes[3].ratio == 0 and config.sizes[3].hole_ratio == 0.5
    assert found.projection.notes


def test_ratios_at_the_float_limit_give_a_configuration_not_an_internal_message() -> None:
    found = try_extract("```yaml\n3x3: {ratio: 1e308}\n4x4: {ratio: 1e308}\n```", BASE)
    assert not isinstance(found, str), found
    assert found.projection.config.sizes[3].ratio == 0.5


# ---- fuzz -----------------------------------------------------------------------------------

KEYS = ["ratio", "hole_ratio", "wait_ratio", "ration", "holes", "", "sizes", "n_agents"]
SIZE_KEYS = [*(f"{s}x{s}" for s in SIZES), *SIZES, "size_7", "11x11", "2x2", "7x8", "abc", True]
VALUES = [0, 0.3, 1, -1, 1e308, -1e308, 1e-320, ".nan", ".inf", "-.inf", "nan", "0x10", "1e999",
          "~", "null", "[1, 2]", "{a: 1}", "'0.2'", "true", "2024-01-01", "!!binary aGk=",
          "!!python/object:os.system x", "&a 1", "*a", "99999999999999999999999"]  # fmt: skip


def _yaml(rng: random.Random, depth: int = 0) -> str:
    lines = []
    for _ in range(rng.randint(0, 6)):
        key = rng.choice(SIZE_KEYS)
        if rng.random() < 0.1 and depth < 30:
            lines.append(
                f"{key}:\n" + "\n".join("  " + x for x in _yaml(rng, depth + 1).splitlines())
            )
            continue
        fields = ", ".join(
            f"{rng.choice(KEYS)}: {rng.choice(VALUES)}" for _ in range(rng.randint(0, 4))
        )
        lines.append(
            f"{key}: {{{fields}}}" if rng.random() < 0.9 else f"{key}: {rng.choice(VALUES)}"
        )
    return "\n".join(lines)


def _noise(rng: random.Random) -> str:
    alphabet = "abc :-{}[]\n\t'\"&*!|>%@`#,?0123456789.x<>/think"
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 300)))


def _answer(rng: random.Random) -> str:
    kind = rng.randrange(10)
    body = _yaml(rng)
    if kind == 0:
        return _noise(rng)
    if kind == 1:
        return f"```yaml\n{body}\n```"
    if kind == 2:
        return f"<think>{_noise(rng)}```yaml\n{_yaml(rng)}\n```</think>text\n```yml\n{body}"
    if kind == 3:
        return f"```yaml\n{body}\n```\n```json\n{{}}\n```\n```\n{_yaml(rng)}\n```"
    if kind == 4:
        return (
            "a: &a ["
            + ",".join(["x"] * 9)
            + "]\n"
            + "".join(
                f"{chr(98 + i)}: &{chr(98 + i)} [" + ",".join([f"*{chr(97 + i)}"] * 9) + "]\n"
                for i in range(rng.randint(1, 8))
            )
        )
    if kind == 5:
        n = rng.randint(10, 200)
        return "```yaml\n7x7: " + "[" * n + "]" * n + "\n```"
    if kind == 6:
        return f"```yaml\n{body}\n```" + " " * rng.choice([0, MAX_ANSWER_CHARS])
    if kind == 7:
        return f"</think>{_noise(rng)}<think>{body}"
    if kind == 8:
        return f"sizes:\n  {rng.choice(SIZE_KEYS)}: {{ratio: {rng.choice(VALUES)}}}"
    return f"{_noise(rng)}\n```yaml\n{body}\n```\n{_noise(rng)}"


def test_fuzz_10000_answers_never_raise_and_stay_legal() -> None:
    rng = random.Random(20260601)
    started = time.perf_counter()
    usable = errors = 0
    for i in range(10_000):
        answer = _answer(rng)
        result = try_extract(answer, BASE)
        if isinstance(result, Extraction):
            usable += 1
            config = result.projection.config
            again = project(config)
            assert not again.notes and again.config == config, (i, answer)
            assert math.isclose(sum(s.ratio for s in config.sizes.values()), 1.0, abs_tol=1e-6)
            assert set(config.sizes) == set(SIZES)
        else:
            errors += 1
            assert "internal error" not in result, (i, answer, result)
            assert len(result) < 2000
    assert usable > 300 and errors > 3000  # both paths were exercised
    assert time.perf_counter() - started < 30
