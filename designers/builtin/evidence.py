"""`evidence`: a rule-based designer that does what the paper found works.

The paper's best designer moved budget to the capability frontier and changed difficulty only
where the failures pointed. These rules do that from the validation report alone, per map size
(valid *and* optimal rates, and the first failing check of each invalid answer):

1. Budget. A size is *saturated* when its valid rate is at least `saturated_at`, *collapsed*
   when below `collapsed_at`, and on the *frontier* in between. Frontier sizes gain
   `frontier_boost` of their ratio and saturated sizes lose `retreat` of theirs. Collapsed
   sizes keep their ratio: the validation set is 2-agent, and a size the policy cannot yet
   solve with two agents is exactly what the 3/4/5-agent benchmarks score, so cutting it
   starves them (and a fresh policy starts collapsed everywhere, so an early cut is noise).
   The ratios are then renormalised so every size lies in [`min_ratio`, `max_ratio`]: all
   eight sizes keep a real share, and no size takes over the budget (the benchmarks score
   every size alike, and compounding boosts would otherwise pile the budget on two or three).
2. Holes. Where hole collisions are at least `dominant_share` of a size's failures, its
   hole_ratio falls by `hole_step`, but not below `min_hole_ratio` (the benchmarks' lightest
   maps have that many holes, so the policy must still see them).
3. Waits. A size's wait_ratio moves by `wait_step` per round:
   a. toward `mid_wait_ratio` when the size is saturated, or when optimality lags validity:
      over the whole validation set, optimal answers are fewer than `optimal_share` of the
      valid ones. The policy has then learnt to wait or detour where it need not, which an
      over-conflicted mix teaches. This test pools all sizes: one policy answers every size,
      so the habit shows everywhere, and per size (50 answers, a score of them valid) a
      couple of answers would decide it;
   b. otherwise up, to at most `max_wait_ratio` (a share above it comes down to it), where
      vertex/edge conflicts are at least `dominant_share` of its failures (more instances
      that need a wait to learn from).
   A policy that ends its episodes in conflicts shows them in nearly every size, so 3b alone
   would drive every size to wait_ratio 1.0 -- an all-conflict mix that wrecks the optimal
   rate on the benchmarks, whose wait shares are 0.25/0.50/0.75. The cap and rule 3a keep the
   mix within the benchmarks' range and pull it back as soon as optimality shows the cost.
4. Keep what works. A size with no dominant failure and no lag keeps its hole and wait
   settings.

Rules on a size apply only when it has at least `min_answers` answers (the optimal-share test
of 3a: at least `min_answers` valid answers in all). Without a validation report it keeps the
configuration.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from designers.arms import bounded_shares, toward
from designers.base import RuleDesigner
from designers.context import DesignContext
from mapf_env import SIZES, EnvConfig
from mapf_env.instance import size_name
from mapf_env.report import EvalReport, RateCounts


class EvidenceRules(BaseModel):
    """Every threshold of the evidence designer (see the module docstring for the rules)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    saturated_at: float = Field(0.85, ge=0, le=1, description="Valid rate at which a size is easy.")
    collapsed_at: float = Field(0.10, ge=0, le=1, description="Valid rate below which it is lost.")
    frontier_boost: float = Field(0.5, ge=0, description="Relative ratio gain on the frontier.")
    retreat: float = Field(0.3, ge=0, le=1, description="Relative ratio loss of saturated sizes.")
    min_ratio: float = Field(
        0.05, ge=0, le=1 / len(SIZES), description="Floor of any size's ratio after the rules."
    )
    max_ratio: float = Field(
        0.25, ge=1 / len(SIZES), le=1, description="Ceiling of any size's ratio after the rules."
    )
    dominant_share: float = Field(0.4, gt=0, le=1, description="Failure share that dominates.")
    hole_step: float = Field(0.05, ge=0, le=0.5, description="hole_ratio cut per round.")
    min_hole_ratio: float = Field(
        0.1, ge=0, le=0.5, description="hole_ratio the hole rule never cuts below."
    )
    wait_step: float = Field(0.1, ge=0, le=1, description="wait_ratio change per round.")
    max_wait_ratio: float = Field(
        0.75, ge=0, le=1, description="wait_ratio the conflict rule never raises above."
    )
    mid_wait_ratio: float = Field(
        0.5, ge=0, le=1, description="wait_ratio that saturated or lagging sizes move toward."
    )
    optimal_share: float = Field(
        0.95,
        ge=0,
        le=1,
        description="Optimal/valid answers (all sizes) below which optimality lags.",
    )
    min_answers: int = Field(5, ge=1, description="Answers a size needs before rules apply.")

    @model_validator(mode="after")
    def _middle_under_cap(self) -> EvidenceRules:
        if self.mid_wait_ratio > self.max_wait_ratio:
            raise ValueError(
                f"mid_wait_ratio {self.mid_wait_ratio} is above max_wait_ratio "
                f"{self.max_wait_ratio}; the middle must lie under the cap"
            )
        return self


class EvidenceDesigner(RuleDesigner):
    name = "evidence"
    description = (
        "Rules: budget to the frontier within bounds, fewer holes / more waits where failures "
        "point, waits back to the middle where optimality lags."
    )

    options_model: ClassVar[type[BaseModel]] = EvidenceRules

    def __init__(self, **rules: Any) -> None:
        self.rules = EvidenceRules(**rules)

    def changes(self, ctx: DesignContext) -> tuple[Mapping[str, Any], str]:
        if ctx.validation is None or ctx.validation.overall.n == 0:
            return {}, "no validation evidence yet: keep the configuration"
        changes: dict[str, dict[str, float]] = {}
        reasons: list[str] = []
        weights = {s: entry.ratio for s, entry in ctx.config.sizes.items()}
        overall = ctx.validation.overall
        lagging = (
            overall.valid >= self.rules.min_answers
            and overall.optimal < self.rules.optimal_share * overall.valid
        )
        if lagging:
            reasons.append(
                f"all sizes: optimal {overall.optimal} of {overall.valid} valid answers "
                f"(< {self.rules.optimal_share:g}): optimality lags"
            )
        for size in ctx.config.sizes:
            counts = ctx.validation.per_size.get(size)
            if counts is None or counts.n < self.rules.min_answers:
                continue
            weights[size], change, why = self._size_change(
                ctx.config, ctx.validation, size, counts, lagging
            )
            changes[size_name(size)] = change
            reasons.append(f"{size_name(size)}: {why}")
        if not changes:
            return {}, "too few answers per size: keep the configuration"
        shares = bounded_shares(weights, self.rules.min_ratio, self.rules.max_ratio)
        for size, share in shares.items():
            changes.setdefault(size_name(size), {})["ratio"] = share
        return changes, "; ".join(reasons)

    def _size_change(
        self,
        config: EnvConfig,
        report: EvalReport,
        size: int,
        counts: RateCounts,
        lagging: bool,
    ) -> tuple[float, dict[str, float], str]:
        """The size's budget weight (before renormalising), its hole/wait changes, and why."""
        rules, entry = self.rules, config.sizes[size]
        valid_rate = counts.valid_rate
        saturated = valid_rate >= rules.saturated_at
        if saturated:
            weight, state = entry.ratio * (1 - rules.retreat), "saturated"
        elif valid_rate < rules.collapsed_at:
            weight, state = entry.ratio, "collapsed: share held for the larger benchmarks"
        else:
            weight, state = entry.ratio * (1 + rules.frontier_boost), "frontier"
        change: dict[str, float] = {}
        why = [f"valid {valid_rate:.2f} / optimal {counts.optimal_rate:.2f} ({state})"]
        failures = report.per_size_failures.get(size, {})
        total = sum(failures.values())
        if total and failures.get("hole", 0) / total >= rules.dominant_share:
            hole = max(
                min(rules.min_hole_ratio, entry.hole_ratio), entry.hole_ratio - rules.hole_step
            )
            if hole != entry.hole_ratio:
                change["hole_ratio"] = round(hole, 4)
                why.append("hole failures dominate: fewer holes")
        wait = entry.wait_ratio
        if saturated or lagging:
            wait = toward(wait, rules.mid_wait_ratio, rules.wait_step)
            reason = "saturated" if saturated else "optimal lags valid"
            if wait != entry.wait_ratio:
                why.append(f"{reason}: wait share back toward {rules.mid_wait_ratio:g}")
        elif total and failures.get("conflict", 0) / total >= rules.dominant_share:
            wait = min(rules.max_wait_ratio, wait + rules.wait_step)
            if wait != entry.wait_ratio:
                why.append("conflicts dominate: more wait instances")
        if wait != entry.wait_ratio:
            change["wait_ratio"] = round(wait, 4)
        return weight, change, ", ".join(why)
