"""What a run keeps of MAPF-FrozenLake's answers: each suite's per-instance verdicts and its
reports, as `Task.result_model` (records store them as they are).

A verdict keeps the instance's cuts (size, wait subset, hole ratio) and both optima, so a board
can cut the results without re-running anything. Suites before version 2 were SOC-keyed: their
records read with the SOC flags and counts filled in from `optimal` and the makespan ones
unknown (`legacy_soc_result`).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from mapf_env import EvalReport, Objective
from mapf_env.suites import OPTIMA

__all__ = [
    "InstanceVerdict",
    "SuiteResult",
    "counts_unknown",
    "legacy_soc_report",
    "legacy_soc_result",
]


class InstanceVerdict(BaseModel):
    """One benchmark instance's outcome: greedy answer, and best of n samples."""

    model_config = ConfigDict(frozen=True)

    id: str
    size: int
    subset: str
    hole_ratio: float
    valid: bool
    optimal: bool
    failure: str | None
    cost: int | None
    optimal_cost: int | None
    best_of_valid: bool
    best_of_optimal: bool
    optimal_soc: bool | None = Field(
        default=None, description="Greedy answer valid with the exact minimal SOC."
    )
    optimal_makespan: bool | None = Field(
        default=None,
        description="Greedy answer valid with the exact minimal makespan (the paper's optimal); "
        "None when the suite version carries no makespan minima.",
    )
    best_of_optimal_soc: bool | None = Field(
        default=None, description="Some of the n samples is SOC-optimal."
    )
    best_of_optimal_makespan: bool | None = Field(
        default=None, description="Some of the n samples is makespan-optimal."
    )


class SuiteResult(BaseModel):
    """A benchmark suite's reports (greedy and best-of-n) and per-instance verdicts."""

    model_config = ConfigDict(frozen=True)

    suite: str
    n_agents: int
    greedy: EvalReport
    best_of: EvalReport
    best_of_n: int
    verdicts: tuple[InstanceVerdict, ...]
    suite_version: int | None = Field(
        default=None, description="The benchmark suites' version (None in older records)."
    )
    content_sha256: str | None = Field(
        default=None,
        description="The suite's content checksum from the benchmark manifest (None in older "
        "records): boards refuse to mix results scored on different benchmark contents.",
    )

    @model_validator(mode="before")
    @classmethod
    def _soc_keys_of_version_1(cls, data: Any) -> Any:
        """Suites before version 2 were SOC-keyed: their `optimal` is the SOC-optimal flag."""
        if isinstance(data, dict) and (data.get("suite_version") or 1) < 2:
            return legacy_soc_result(data)
        return data

    @property
    def optima(self) -> tuple[Objective, ...]:
        """The exact optima this result's verdicts were judged against."""
        return OPTIMA.get(self.suite_version or 1, (Objective.SOC,))


def legacy_soc_result(data: dict[str, Any]) -> dict[str, Any]:
    """A version-1 suite result's raw fields with the SOC flags and counts filled in from
    `optimal` (version 1's answer keys were SOC minima) and the makespan ones left unknown."""
    out = dict(data)
    out["verdicts"] = [
        _filled(v, {"optimal_soc": "optimal", "best_of_optimal_soc": "best_of_optimal"})
        for v in out.get("verdicts", ())
    ]
    for key in ("greedy", "best_of"):
        if out.get(key) is not None:
            out[key] = legacy_soc_report(out[key])
    return out


def legacy_soc_report(report: Any) -> dict[str, Any]:
    """A report (model or raw fields) of version-1 answer keys with its SOC-optimal counts
    filled in from `optimal`, the makespan ones left unknown."""
    fields = report.model_dump() if isinstance(report, BaseModel) else dict(report)
    fields["overall"] = _filled(fields.get("overall", {}), {"optimal_soc": "optimal"})
    fields["per_size"] = {
        size: _filled(counts, {"optimal_soc": "optimal"})
        for size, counts in fields.get("per_size", {}).items()
    }
    return fields


def counts_unknown(report: Any) -> bool:
    """Neither optimum counted: a report of version-1 (SOC) answer keys."""
    overall = report.overall if isinstance(report, EvalReport) else dict(report).get("overall")
    fields = overall.model_dump() if isinstance(overall, BaseModel) else dict(overall or {})
    return fields.get("optimal_soc") is None and fields.get("optimal_makespan") is None


def _filled(item: Any, copies: dict[str, str]) -> Any:
    """`item` (a model or its dict) with each unset target field copied from its source."""
    fields = item.model_dump() if isinstance(item, BaseModel) else dict(item)
    for target, source in copies.items():
        if fields.get(target) is None and source in fields:
            fields[target] = fields[source]
    return fields
