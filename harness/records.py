"""What a run writes: per-round records and the final, versioned `ResultRecord`.

Leaderboards are built from these files alone, so each says which code, config and seed made
it (`provenance`), and the final record keeps every benchmark instance's verdict -- a board can
then cut the results by size, wait subset or hole ratio without re-running anything.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from designers import Proposal
from mapf_env import EnvConfig, EvalReport, GenerationStats
from mapf_env.provenance import provenance

RESULT_SCHEMA_VERSION = "1"


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


class RoundResult(BaseModel):
    """One finished round as recorded in the run directory."""

    model_config = ConfigDict(frozen=True)

    round: int
    config: EnvConfig = Field(description="The configuration this round trained on.")
    stats: GenerationStats
    validation: EvalReport
    proposal: Proposal | None = Field(default=None, description="None after the last round.")
    train_seconds: float
    samples: int
    epochs: int


class ResultRecord(BaseModel):
    """The final record of one (experiment, designer, seed) run."""

    model_config = ConfigDict(frozen=True)

    schema_version: str = RESULT_SCHEMA_VERSION
    package_version: str
    git_commit: str
    kind: Literal["designer", "policy"] = "designer"
    experiment: dict[str, Any] = Field(description="The resolved ExperimentConfig.")
    designer: str
    seed: int
    backend: str
    initial_source: Literal["shared", "designer"] = Field(
        description="Whether round 0 used the shared seeded start or the designer's own."
    )
    rounds: tuple[RoundResult, ...]
    suites: dict[str, SuiteResult]
    seconds: float
    notes: tuple[str, ...] = Field(
        default=(),
        description="What a reader should know about how the record was made, e.g. a zero-shot "
        "evaluation's failed requests and cached answers (empty in older records).",
    )


def stamp() -> dict[str, str]:
    """Schema, package version and git commit for a new record."""
    info = provenance(RESULT_SCHEMA_VERSION)
    return {
        "schema_version": info["schema_version"],
        "package_version": info["package_version"],
        "git_commit": info["git_commit"],
    }
