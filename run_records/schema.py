"""What a run writes: per-round records and the final, versioned `ResultRecord`.

Leaderboards are built from these files alone, so each says which code, config and seed made
it (`provenance`), and the final record keeps every benchmark instance's verdict -- a board can
then cut the results by size, wait subset or hole ratio without re-running anything.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Generic, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from typing_extensions import TypeVar

from designers import Proposal, RoundRecord, TrainingInfo
from designers.task_types import ConfigT, ReportT, StatsT
from envdesign_common import older_record, provenance
from envdesign_common.generic_models import GenericRecord, parameters_of, parametrized
from mapf_env import EvalReport
from run_records.machine import MachineRecord
from run_records.recorded_experiment import RecordedExperiment
from run_records.request_failures import RequestFailures
from run_records.training_summary import TrainingSummary
from tasks.mapf_frozenlake.records import OLDER_SUITE_KEYS, SuiteResult

LoadKind = Literal["training", "evaluation", "serving-policy", "serving-base"]
"""What a model was loaded for: a training process, an evaluation (offline generation), or a
server for the `self` (policy) or `base` designer."""


class ModelLoad(BaseModel):
    """One model load of a backend: a process that had to read a model before doing its job.

    Each backend says where its load ends; the verl backend: training, when verl's file logger
    opens its file (verl does so in ``fit()``, right after ``init_workers()`` built Ray's
    workers, the actor, the reference and the rollout engine); evaluation, when vLLM's engine
    is built (the generator's own clock, its imports included); serving, when ``/health`` and
    ``/v1/models`` answer.
    """

    model_config = ConfigDict(frozen=True)

    kind: LoadKind
    model: str = Field(description="The model loaded: a Hugging Face directory or id.")
    seconds: float = Field(ge=0.0, description="From the process's start to its model's ready.")
    process_seconds: float | None = Field(
        default=None,
        ge=0.0,
        description="The whole process, start to exit; None for a server (it runs on).",
    )
    note: str | None = Field(
        default=None, description="What a reader should know, e.g. a rerun after a crash."
    )


RESULT_SCHEMA_VERSION = "1"


OVERHEAD_SHARES = ("data", "model loads", "training steps", "evaluation", "design", "other")
"""Where a round's time goes, in the order `harness runs show` prints it."""


class RoundTimings(BaseModel):
    """Where one round's wall time went, as this harness process measured it.

    The phases are the loop's (a round resumed in the middle of training counts only what the
    resuming process did). Within them: the backend's model loads, the optimiser steps, the
    evaluation (answering and scoring, plus the trainer's own validation where it gave the
    answers), the design step (a served model's queries included) and the rest: data
    generation, process starts and exits, checkpoint saves.
    """

    model_config = ConfigDict(frozen=True)

    phases: dict[str, float] = Field(
        default_factory=dict,
        description="Seconds of each phase of the round (generate, train, evaluate, design; "
        "benchmark after the last round), from the loop's phase changes.",
    )
    step_seconds: float = Field(
        0.0, ge=0.0, description="The round's optimiser steps (the sum of TrainStep.seconds)."
    )
    loads: tuple[ModelLoad, ...] = Field(
        default=(), description="The backend's model loads in the round (none on the CPU)."
    )
    validation_seconds: float | None = Field(
        default=None,
        description="The trainer's own validation of the round's model inside training (verl: "
        "timing_s/testing), counted as evaluation; None where the trainer validated nothing.",
    )
    notes: tuple[str, ...] = Field(default=(), description="The backend's notes on the round.")

    @property
    def total(self) -> float:
        return sum(self.phases.values())

    def load_seconds(self, *kinds: str) -> float:
        """Seconds of the loads of `kinds` (all loads when none is named)."""
        return sum(x.seconds for x in self.loads if not kinds or x.kind in kinds)

    def shares(self) -> dict[str, float]:
        """Seconds per `OVERHEAD_SHARES` entry; they add up to `total`."""
        phases = self.phases
        evaluation = max(0.0, phases.get("evaluate", 0.0) - self.load_seconds("evaluation"))
        design = max(0.0, phases.get("design", 0.0)
                     - self.load_seconds("serving-policy", "serving-base"))  # fmt: skip
        parts = {
            "data": phases.get("generate", 0.0),  # the round's instances, generated and solved
            "model loads": self.load_seconds(),
            "training steps": self.step_seconds,
            "evaluation": evaluation + (self.validation_seconds or 0.0),
            "design": design,
        }
        return {**parts, "other": max(0.0, self.total - sum(parts.values()))}


ResultT = TypeVar("ResultT", bound=BaseModel, default=SuiteResult)
"""The task's suite result (`Task.result_model`); MAPF-FrozenLake's unparametrized."""


class RoundResult(GenericRecord, Generic[ConfigT, StatsT, ReportT]):
    """One finished round as recorded in the run directory, in the task's own models
    (`run_records.task_records` gives a task's class; plain, MAPF-FrozenLake's)."""

    model_config = ConfigDict(frozen=True)

    round: int
    config: ConfigT = Field(description="The configuration this round trained on.")
    stats: StatsT
    validation: ReportT = Field(
        description="Greedy answers on the validation suite (MAPF-FrozenLake's counts both "
        "SOC- and makespan-optimal answers)."
    )
    proposal: Proposal[ConfigT] | None = Field(
        default=None, description="None after the last round."
    )
    train_seconds: float
    samples: int
    epochs: int
    training: TrainingSummary | None = Field(
        default=None,
        description="The round's training in numbers (steps, learning rate, KL, reward mean "
        "and trend, valid rates, reward weight), which the designer's T module can show; None "
        "from backends that give none.",
    )
    files: dict[str, str] = Field(
        default_factory=dict,
        description="sha256 of each file this record vouches for (config.yaml and every file "
        "under checkpoint/), by path relative to the round directory: resume trains a round "
        "again when one is missing or differs.",
    )
    timings: RoundTimings | None = Field(
        default=None,
        description="Where the round's time went: phases, model loads, optimiser steps; None "
        "where the round was not timed (a record made outside the round loop).",
    )
    target: dict[str, Any] | None = Field(
        default=None,
        description="What the backend ran the round on that changes how it computes (verl: "
        "its version and line, the attention implementation and padding removal, and why); "
        "None for the CPU learner (see ResultRecord.machine) and backends that do not say.",
    )

    def history_entry(self) -> RoundRecord[ConfigT, StatsT, ReportT]:
        """The round as a designer's history shows it: the same fields under the same names,
        in the same models, with the designer's own summary of it (module S)."""
        summary = self.proposal.summary if self.proposal else None
        entry = parametrized(RoundRecord, *parameters_of(self))
        return entry(round=self.round, config=self.config, validation=self.validation,
                     stats=self.stats, summary=summary)  # fmt: skip

    def training_info(self) -> TrainingInfo:
        """The round's training as the designer's T module reads it."""
        details = self.training.as_details() if self.training else {}
        return TrainingInfo(round=self.round, epochs=self.epochs, samples=self.samples,
                            details=details)  # fmt: skip

    @model_validator(mode="before")
    @classmethod
    def _counts_both_optima(cls, data: Any) -> Any:
        """MAPF-FrozenLake's validation report counts SOC- and makespan-optimal answers; one
        with answers but neither count was scored on suite version 1's answer keys."""
        report = data.get("validation") if isinstance(data, dict) else None
        args = cls.__pydantic_generic_metadata__["args"]
        reads = args[2] if args else EvalReport  # the plain class's: the default task's
        if reads is EvalReport and report is not None and _optima_uncounted(report):
            raise older_record(
                f"a validation report {OLDER_SUITE_KEYS}",
                "train the round again (`--resume` trains a round whose record does not read)",
            )
        return data


def _optima_uncounted(report: Any) -> bool:
    """A report (model or raw fields) with answers but neither optimum counted."""
    overall = report.overall if isinstance(report, EvalReport) else None
    if isinstance(report, dict):
        overall = report.get("overall")
    counts = overall.model_dump() if isinstance(overall, BaseModel) else overall
    if not isinstance(counts, dict) or not counts.get("n"):
        return False
    return counts.get("optimal_soc") is None and counts.get("optimal_makespan") is None


class ResultRecord(GenericRecord, Generic[ConfigT, StatsT, ReportT, ResultT]):
    """The final record of one (experiment, designer, seed) run, in the task's own models."""

    model_config = ConfigDict(frozen=True)

    schema_version: str = RESULT_SCHEMA_VERSION
    package_version: str
    git_commit: str
    kind: Literal["designer", "policy"] = "designer"
    experiment: RecordedExperiment = Field(description="The resolved ExperimentConfig.")
    designer: str
    seed: int
    backend: str
    initial_source: Literal["shared", "designer"] = Field(
        description="Whether round 0 used the shared seeded start or the designer's own."
    )
    rounds: tuple[RoundResult[ConfigT, StatsT, ReportT], ...]
    suites: dict[str, ResultT]
    seconds: float
    allow_design_failures: bool = Field(
        default=False,
        description="The run was started with --allow-design-failures: a designer whose design "
        "steps all failed is still shown on boards (flagged) instead of being left unranked.",
    )
    machine: MachineRecord | None = Field(
        default=None,
        description="How the backend computed (precision, CPU, kernels, versions, threads): "
        "boards refuse to pool runs that differ in it. None for backends that do not say.",
    )
    notes: tuple[str, ...] = Field(
        default=(),
        description="What a reader should know about how the record was made, e.g. a zero-shot "
        "evaluation's failed requests and cached answers.",
    )
    benchmark_timings: RoundTimings | None = Field(
        default=None,
        description="Where the final benchmarks' time went (phase `benchmark` and the model "
        "loads it took); None where they were not timed (a record made outside the round "
        "loop).",
    )
    failed_requests: RequestFailures | None = Field(
        default=None,
        description="A zero-shot model's requests and those that failed after their retries "
        "(their instances count as unanswered), with the reasons: boards flag the row, and "
        "leave it unranked when every request failed. None for a checkpoint (no requests) "
        "and in designer records.",
    )
    answers_sha256: dict[str, str] = Field(
        default_factory=dict,
        description="sha256 of each suite's stored answers, `answers/<suite>.jsonl.gz` beside "
        "this record (the greedy answer and every best-of sample per instance, in suite "
        "order), by suite name: `harness leaderboard verify` re-scores them with the installed "
        "verifier. Empty in a record made without stored answers (its verdicts cannot be "
        "re-checked, and bundles refuse it).",
    )

    def design_failures(self) -> list[tuple[int, str]]:
        """(round, reason) of every design step whose designer could not design."""
        return [
            (r.round, r.proposal.failure_reason or "no reason recorded")
            for r in self.rounds
            if r.proposal is not None and r.proposal.design_failed
        ]

    def design_steps(self) -> int:
        """How many design steps the run took (one after every round but the last)."""
        return sum(1 for r in self.rounds if r.proposal is not None)


class FailureRecord(BaseModel):
    """Why a run stopped with an error (`failure.json`): boards and `harness runs list` show it
    instead of calling the run merely unfinished; a later successful resume removes it."""

    model_config = ConfigDict(frozen=True)

    schema_version: str = RESULT_SCHEMA_VERSION
    package_version: str
    git_commit: str
    error: str = Field(description="The exception's type name.")
    message: str = Field(description="The exception's first line, cut to a bounded length.")
    round: int | None = Field(
        default=None, description="The round that was running; None after the last (benchmarks)."
    )
    time: datetime = Field(description="When the run failed (UTC).")

    def reason(self) -> str:
        """One line: the error and where it happened."""
        where = f" in round {self.round + 1}" if self.round is not None else ""
        return f"{self.error}{where}: {self.message}"


def stamp() -> dict[str, str]:
    """Schema, package version and git commit for a new record."""
    info = provenance(RESULT_SCHEMA_VERSION)
    return {
        "schema_version": info["schema_version"],
        "package_version": info["package_version"],
        "git_commit": info["git_commit"],
    }
