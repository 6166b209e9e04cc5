"""What a run keeps of MAPF-FrozenLake's answers: each suite's per-instance verdicts and its
reports, as `Task.result_model` (records store them as they are).

A verdict keeps the instance's cuts (size, wait subset, hole ratio) and both optima, so a board
can cut the results without re-running anything. A result names the suite version it was scored
on; one scored on suite version 1's answer keys (SOC minima only), or naming no version, is of
a form this version does not read, and is refused in one line (`older_record`).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from envdesign_common import older_record
from mapf_env import EvalReport, Objective
from mapf_env.suites import OPTIMA, SUITE_VERSION

__all__ = ["OLDER_SUITE_KEYS", "RESCORE_REMEDY", "InstanceVerdict", "SuiteResult"]

OLDER_SUITE_KEYS = "scored on suite version 1's answer keys (SOC minima only)"
"""What a record of the form this version does not read was scored on."""
RESCORE_REMEDY = (
    "re-score the run's stored answers (answers/<suite>.jsonl.gz) on the installed suites with "
    "run_records.score_answers, or run the experiment again where the run stored none"
)
"""How to make a result this version reads of a run whose result it refuses."""


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
    n_agents: int | None = Field(
        description="Agents of every instance of the suite; None for one that mixes agent "
        "counts (validation-multi: 3, 4 and 5)."
    )
    greedy: EvalReport
    best_of: EvalReport
    best_of_n: int
    verdicts: tuple[InstanceVerdict, ...]
    suite_version: int = Field(
        description=f"The benchmark suites' version (this version scores on {SUITE_VERSION})."
    )
    content_sha256: str = Field(
        description="The suite's content checksum from the benchmark manifest: boards refuse to "
        "mix results scored on different benchmark contents."
    )

    @model_validator(mode="before")
    @classmethod
    def _scored_on_both_optima(cls, data: Any) -> Any:
        """A result of suite version 1 (or naming none) was judged against SOC minima only:
        its `optimal` is not this version's, and it has no makespan flags to read."""
        version = data.get("suite_version") if isinstance(data, dict) else 2
        if version is None or (isinstance(version, int) and version < 2):
            raise older_record(f"a suite result {OLDER_SUITE_KEYS}", RESCORE_REMEDY)
        return data

    @property
    def optima(self) -> tuple[Objective, ...]:
        """The exact optima this result's verdicts were judged against."""
        return OPTIMA.get(self.suite_version, (Objective.SOC,))
