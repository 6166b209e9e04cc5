"""`evidence`: a rule-based designer that does what the paper found works.

The paper's best designer moved budget to the capability frontier and changed difficulty only
where the failures pointed. These rules do that from the validation report alone:

1. Budget. A size is *saturated* when its valid rate is at least `saturated_at`, *collapsed*
   when below `collapsed_at`, and on the *frontier* in between. Frontier sizes gain
   `frontier_boost` of their ratio, saturated and collapsed sizes lose `retreat` of theirs; no
   size drops below `min_ratio` (all eight sizes are kept), and projection renormalises.
2. Holes. Where hole collisions are at least `dominant_share` of a size's failures, its
   hole_ratio falls by `hole_step` (the policy first has to learn to see holes).
3. Conflicts. Where vertex/edge conflicts are at least `dominant_share` of a size's failures,
   its wait_ratio rises by `wait_step` (more instances that need a wait to learn from).
4. Keep what works. A size with no dominant failure keeps its hole and wait settings.

Without a validation report (nothing measured yet) it keeps the configuration.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from designers.base import RuleDesigner
from designers.context import DesignContext
from mapf_env import EnvConfig
from mapf_env.config import size_name
from mapf_env.report import EvalReport


class EvidenceRules(BaseModel):
    """Every threshold of the evidence designer (see the module docstring for the rules)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    saturated_at: float = Field(0.85, ge=0, le=1, description="Valid rate at which a size is easy.")
    collapsed_at: float = Field(0.10, ge=0, le=1, description="Valid rate below which it is lost.")
    frontier_boost: float = Field(0.5, ge=0, description="Relative ratio gain on the frontier.")
    retreat: float = Field(0.3, ge=0, le=1, description="Relative ratio loss off the frontier.")
    min_ratio: float = Field(0.02, ge=0, le=0.125, description="Floor of any size's ratio.")
    dominant_share: float = Field(0.4, gt=0, le=1, description="Failure share that dominates.")
    hole_step: float = Field(0.05, ge=0, le=0.5, description="hole_ratio cut per round.")
    wait_step: float = Field(0.1, ge=0, le=1, description="wait_ratio rise per round.")
    min_answers: int = Field(5, ge=1, description="Answers a size needs before rules apply.")


class EvidenceDesigner(RuleDesigner):
    name = "evidence"
    description = "Rules: budget to the frontier, fewer holes / more waits where failures point."

    def __init__(self, **rules: Any) -> None:
        self.rules = EvidenceRules(**rules)

    def changes(self, ctx: DesignContext) -> tuple[Mapping[str, Any], str]:
        if ctx.report is None or ctx.report.overall.n == 0:
            return {}, "no validation evidence yet: keep the configuration"
        changes: dict[str, dict[str, float]] = {}
        reasons: list[str] = []
        for size in ctx.config.sizes:
            counts = ctx.report.per_size.get(size)
            if counts is None or counts.n < self.rules.min_answers:
                continue
            change, why = self._size_change(ctx.config, ctx.report, size, counts.valid_rate)
            changes[size_name(size)] = change
            reasons.append(f"{size_name(size)}: {why}")
        return changes, "; ".join(reasons) or "too few answers per size: keep the configuration"

    def _size_change(
        self, config: EnvConfig, report: EvalReport, size: int, valid_rate: float
    ) -> tuple[dict[str, float], str]:
        rules, entry = self.rules, config.sizes[size]
        if valid_rate >= rules.saturated_at:
            ratio, state = entry.ratio * (1 - rules.retreat), "saturated"
        elif valid_rate < rules.collapsed_at:
            ratio, state = entry.ratio * (1 - rules.retreat), "collapsed"
        else:
            ratio, state = entry.ratio * (1 + rules.frontier_boost), "frontier"
        change = {"ratio": max(ratio, rules.min_ratio)}
        why = [f"valid {valid_rate:.2f} ({state})"]
        failures = report.per_size_failures.get(size, {})
        total = sum(failures.values())
        if total:
            if failures.get("hole", 0) / total >= rules.dominant_share:
                change["hole_ratio"] = max(0.0, entry.hole_ratio - rules.hole_step)
                why.append("hole failures dominate: fewer holes")
            if failures.get("conflict", 0) / total >= rules.dominant_share:
                change["wait_ratio"] = min(1.0, entry.wait_ratio + rules.wait_step)
                why.append("conflicts dominate: more wait instances")
        return change, ", ".join(why)
