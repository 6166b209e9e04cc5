"""What a designer returns: `Proposal`, with everything needed to audit it later.

Designers are compared on the policies their configurations train, so a proposal keeps not only
the projected configuration but the raw changes the designer meant, every projection note,
its rationale, and -- for model-backed designers -- the full transcript, token counts, cost and
wall time. Failures (no YAML, a provider outage) are recorded here, never raised into the loop.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Generic

from pydantic import BaseModel, ConfigDict, Field, field_validator

from designers.task_types import ConfigT
from envdesign_common import TextDigest
from envdesign_common.generic_models import GenericRecord, parametrized
from envdesign_common.projection_notes import ProjectionNote


class ModelCall(BaseModel):
    """One request to a model and its answer, as sent and received: keys never included (the
    values of key variables are redacted), and an answer or reasoning beyond
    `envdesign_common.MAX_STORED_CHARS` kept as an excerpt beside its whole length and sha256."""

    model_config = ConfigDict(frozen=True)

    purpose: str = Field(description="'analysis', 'summary', or a retry of one.")
    model: str
    messages: tuple[dict[str, str], ...]
    response: str = ""
    response_full: TextDigest | None = Field(
        default=None,
        description="Length and sha256 of the whole answer when `response` is an excerpt of "
        "it; None when `response` is the whole answer.",
    )
    reasoning: str = Field(default="", description="Text of <think> blocks, kept out of parsing.")
    reasoning_full: TextDigest | None = Field(
        default=None,
        description="Length and sha256 of the whole reasoning when `reasoning` is an excerpt.",
    )
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    seconds: float = 0.0
    error: str | None = None


class Proposal(GenericRecord, Generic[ConfigT]):
    """The next round's configuration and how it came about (generic in the task's
    configuration model; `proposal_type` gives the class for a given configuration)."""

    model_config = ConfigDict(frozen=True)

    designer: str
    config: ConfigT = Field(description="The legal configuration for the next round.")
    changes: dict[str, Any] = Field(default_factory=dict, description="What the designer asked.")
    notes: tuple[ProjectionNote, ...] = Field(default=(), description="What projection changed.")
    rationale: str = ""
    summary: str | None = Field(default=None, description="Self-summary for the next round (S).")
    transcript: tuple[ModelCall, ...] = ()
    failures: tuple[str, ...] = Field(default=(), description="Everything that went wrong.")
    kept_previous: bool = Field(default=False, description="True when no usable answer came.")
    failure_reason: str | None = Field(
        default=None,
        description="Why the designer could not design this step, in a few words ('missing "
        "credentials', 'rate limit', 'no usable change set in 3 attempts'); None when it did. "
        "Set exactly when `kept_previous` is: boards count such steps and flag the designer.",
    )
    seconds: float = 0.0

    @field_validator("changes", mode="before")
    @classmethod
    def _string_keys(cls, value: Any) -> Any:
        """Keys as strings, so a proposal reads back from JSON exactly as it was written."""
        return _stringify(value) if isinstance(value, Mapping) else value

    @property
    def design_failed(self) -> bool:
        """The designer could not design: the previous configuration was kept for it."""
        return self.kept_previous

    @property
    def prompt_tokens(self) -> int:
        return sum(c.prompt_tokens for c in self.transcript)

    @property
    def completion_tokens(self) -> int:
        return sum(c.completion_tokens for c in self.transcript)

    @property
    def cost_usd(self) -> float | None:
        """Total dollars where every call reported a cost; None when any did not."""
        costs = [c.cost_usd for c in self.transcript]
        if not costs or any(c is None for c in costs):
            return None
        return float(sum(c for c in costs if c is not None))


def proposal_type(config: BaseModel) -> type[Proposal[Any]]:
    """The proposal class whose configuration is of `config`'s model."""
    return parametrized(Proposal, type(config))


def _stringify(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _stringify(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_stringify(v) for v in value]
    return value
