"""The analysis prompt of each variant V1-V6, byte for byte, for one fixed context.

The expected prompts live in ``tests/golden/designer_prompts/<variant>.md``. After a deliberate
change to a prompt file or a module renderer, regenerate them and review the diff:

    ENVDESIGN_REGEN_GOLDEN=1 pytest tests/designers/test_llm_prompts.py
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from designers.context import DesignContext, RoundRecord, TrainingInfo
from designers.llm import modules
from designers.llm.variants import VARIANTS, analysis_messages, get_variant, summary_messages
from mapf_env import SIZES, EnvConfig, SizeConfig
from mapf_env.report import FAILURE_TYPES, EvalReport, RateCounts

GOLDEN = Path(__file__).parents[1] / "golden" / "designer_prompts"
REGENERATE = os.environ.get("ENVDESIGN_REGEN_GOLDEN") == "1"


def _report(base: float, *, both_optima: bool = False) -> EvalReport:
    """A report; with `both_optima`, it also counts SOC- and makespan-optimal answers (as on
    the validation suite), else only the answer key's own objective (as on training data)."""
    share = {s: max(0.0, base - 0.1 * (s - 3)) for s in SIZES}
    per_size = {
        s: RateCounts(
            n=20, valid=round(20 * share[s]), optimal=round(10 * share[s]),
            optimal_soc=round(10 * share[s]) if both_optima else None,
            optimal_makespan=round(14 * share[s]) if both_optima else None,
        )
        for s in SIZES
    }  # fmt: skip
    per_fail = {
        s: {**dict.fromkeys(FAILURE_TYPES, 0), "conflict": s, "hole": s // 2} for s in SIZES
    }
    totals = {k: sum(f[k] for f in per_fail.values()) for k in FAILURE_TYPES}
    overall = RateCounts(
        n=160,
        valid=sum(r.valid for r in per_size.values()),
        optimal=sum(r.optimal for r in per_size.values()),
        optimal_soc=sum(r.optimal_soc or 0 for r in per_size.values()) if both_optima else None,
        optimal_makespan=sum(r.optimal_makespan or 0 for r in per_size.values())
        if both_optima
        else None,
    )
    return EvalReport(
        overall=overall, per_size=per_size, failures=totals, per_size_failures=per_fail
    )


def fixed_context() -> DesignContext:
    """Round 2 of 3, with two earlier rounds (one summarised) and RL details."""
    start = EnvConfig(
        sizes={s: SizeConfig(ratio=0.125, hole_ratio=0.05 * (s - 3), wait_ratio=0.3) for s in SIZES}
    )
    mid = EnvConfig.uniform(hole_ratio=0.2, wait_ratio=0.4)
    history = (
        RoundRecord(round=0, config=start, validation=_report(0.6)),
        RoundRecord(round=1, config=mid, validation=_report(0.7), summary="7x7 lags on conflicts."),
    )
    return DesignContext(
        round=2,
        total_rounds=3,
        config=EnvConfig.uniform(hole_ratio=0.3, wait_ratio=0.5),
        initial_config=start,
        validation=_report(0.8, both_optima=True),
        history=history,
        training=TrainingInfo(
            round=2, epochs=3, samples=4000, details={"kl": 0.01, "reward": 0.42}
        ),
    )


CASES = [*VARIANTS, "V6-details"]


def _render(case: str) -> str:
    name, _, details = case.partition("-")
    variant = get_variant(name, training_details=bool(details))
    messages = analysis_messages(fixed_context(), variant)
    return "".join(f"<<{m['role']}>>\n{m['content']}\n" for m in messages)


@pytest.mark.parametrize("case", CASES)
def test_golden_prompt(case: str) -> None:
    expected = GOLDEN / f"{case}.md"
    text = _render(case)
    if REGENERATE:
        expected.write_text(text, encoding="utf-8")
    assert expected.exists(), f"missing {expected.name}; run with ENVDESIGN_REGEN_GOLDEN=1"
    assert text == expected.read_text(encoding="utf-8"), (
        f"{case}: the prompt changed; if on purpose regenerate (ENVDESIGN_REGEN_GOLDEN=1) "
        "and review the diff"
    )


HEADINGS = {
    "F": "## Validation results",
    "G": "## Guidelines",
    "H": "## History of earlier rounds",
    "S": "## Your summary of the previous round",
    "T": "## Training",
}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_has_exactly_its_modules(name: str) -> None:
    text = _render(name)
    for module, heading in HEADINGS.items():
        assert (heading in text) == (module in VARIANTS[name].modules), (name, module)
    assert "```yaml" in text and "## Current configuration" in text


def test_history_default_only_in_v3() -> None:
    assert "### Round 0" in _render("V3")
    assert "### Round 0" not in _render("V4")
    assert "### Round 1" in _render("V4")


def test_training_details_are_opt_in() -> None:
    assert "reward" not in _render("V6") and "epochs trained this round: 3" in _render("V6")
    assert "- reward: 0.42" in _render("V6-details")


def test_empty_context_renders_without_empty_sections() -> None:
    cfg = EnvConfig.uniform()
    ctx = DesignContext(round=0, total_rounds=3, config=cfg, initial_config=cfg)
    text = analysis_messages(ctx, get_variant("V6"))[1]["content"]
    assert HEADINGS["F"] not in text and HEADINGS["H"] not in text and HEADINGS["S"] not in text
    assert modules.render_history(ctx, include_default=True) == ""


def test_summary_prompt_asks_for_sentences() -> None:
    ctx = fixed_context()
    text = summary_messages(ctx, get_variant("V6"), ctx.config.to_yaml(), "why")[1]["content"]
    assert "3 to 5" in text and "why" in text


def test_unknown_variant_is_named() -> None:
    with pytest.raises(ValueError, match="V7"):
        get_variant("V7")
    assert get_variant("v5").name == "V5"


def test_same_context_same_prompt() -> None:
    assert _render("V6") == _render("V6")
