"""What a designer sees between rounds: `DesignContext`.

The harness builds one context per round from what it already has -- the config that made the
round's data, the generator's achieved statistics, the validation report, the history of earlier
rounds, the training bookkeeping -- and, for designers that ask a model, the endpoints of the
current checkpoint and of the base model. Designers read it; they never train or evaluate.
"""

from __future__ import annotations

from typing import Any, Generic

from pydantic import BaseModel, ConfigDict, Field, SkipValidation

from designers.task_types import ConfigT, ReportT, StatsT
from envdesign_common.generic_models import GenericRecord
from tasks import DEFAULT_TASK, Task, cached_task


class Endpoint(BaseModel):
    """An OpenAI-compatible server that serves a model (vLLM for `self` and `base`).

    Only the *name* of the environment variable holding a key is stored, never the key, so a
    context can be written to disk or shown in a prompt without leaking it.
    """

    model_config = ConfigDict(frozen=True)

    base_url: str = Field(description="e.g. http://127.0.0.1:8000/v1")
    model: str = Field(description="The served model name.")
    api_key_env: str | None = Field(default=None, description="Env var holding the key, if any.")


class TrainingInfo(BaseModel):
    """Training bookkeeping of the round just finished (module T of the LLM designer).

    `details` holds the round's training summary as readable name -> number pairs (optimiser
    steps, learning rate, KL coefficient, reward mean and slope, rollout valid rate at the first
    and last step, KL and policy loss at the last step, the reward's weight): the harness fills
    it from the round record (`run_records.training_summary`), and T shows it only under the "full
    RL details" option, the paper's ablation. Empty when the backend gave no summary.
    """

    model_config = ConfigDict(frozen=True)

    round: int = 0
    epochs: int = 0
    samples: int = 0
    details: dict[str, float] = Field(
        default_factory=dict, description="Full RL details (reward, KL, loss ...), optional."
    )


class RoundRecord(GenericRecord, Generic[ConfigT, StatsT, ReportT]):
    """One finished round as the history shows it: the designer's view of a round record
    (`run_records.RoundResult.history_entry`), under the same field names."""

    model_config = ConfigDict(frozen=True)

    round: int
    config: ConfigT
    validation: ReportT | None = Field(
        default=None, description="The round's validation report (greedy answers)."
    )
    stats: StatsT | None = None
    summary: str | None = Field(default=None, description="The designer's own summary (S).")


class DesignContext(GenericRecord, Generic[ConfigT, StatsT, ReportT]):
    """Everything a designer may use to write the next round's configuration."""

    model_config = ConfigDict(frozen=True)

    round: int = Field(description="Index of the round just finished (0-based).")
    total_rounds: int
    config: ConfigT = Field(description="The configuration of the round just finished.")
    initial_config: ConfigT = Field(description="Round 0's configuration (the default).")
    validation: ReportT | None = Field(
        default=None, description="The round just finished's validation report."
    )
    stats: StatsT | None = Field(default=None, description="Achieved generator stats.")
    history: tuple[RoundRecord[ConfigT, StatsT, ReportT], ...] = Field(
        default=(), description="Earlier rounds, oldest first."
    )
    training: TrainingInfo = Field(default_factory=TrainingInfo)
    seed: int = Field(default=0, description="The run's seed; designers derive randomness from it.")
    policy_endpoint: Endpoint | None = None
    base_endpoint: Endpoint | None = None
    task: SkipValidation[Any] = Field(
        default=None,
        exclude=True,
        repr=False,
        description="The task designed for: its knobs, bounds and projection (`design_task`). "
        "Not written with the context; None in a context made by hand means the default task.",
    )

    def design_task(self) -> Task[Any, Any]:
        """The task this context is of: the one the loop gave, else the default task."""
        return self.task if self.task is not None else cached_task(DEFAULT_TASK)
