"""How a policy is sampled (part of what it is judged on) and how it is asked (not part of it)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from designers.llm.client import CallSettings


class Sampling(BaseModel):
    """Sampling settings: they change the answers, so they key the answer cache and are recorded."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    temperature: float | None = Field(
        default=None, ge=0.0, description="None: not sent, the provider's default applies."
    )
    max_tokens: int | None = Field(
        default=None, ge=1, description="Completion token limit; None: not sent."
    )
    samples: int = Field(
        default=1,
        ge=1,
        description="Answers per instance. Greedy is scored on the first, best-of-n over all, so "
        "with one sample best-of-n equals greedy.",
    )

    def cache_part(self) -> dict[str, Any]:
        """What of the settings changes a single answer (not how many are asked for)."""
        return {"temperature": self.temperature, "max_tokens": self.max_tokens}


class Requests(BaseModel):
    """How requests are sent: concurrency, retries, timeouts and the failure guard."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    concurrency: int = Field(default=8, ge=1, description="Requests in flight at once.")
    max_retries: int = Field(default=5, ge=0, description="Retries of one transient failure.")
    timeout_s: float = Field(
        default=120.0, gt=0.0, description="Wall-clock limit of one attempt, body included."
    )
    deadline_s: float = Field(
        default=600.0, gt=0.0, description="Limit of one request, retries included."
    )
    max_failures: int = Field(
        default=20, ge=0, description="Stop once more requests than this failed after retries."
    )
    backoff_base_s: float = Field(default=2.0, gt=0.0)
    backoff_max_s: float = Field(default=60.0, gt=0.0)

    def call_settings(self, sampling: Sampling) -> CallSettings:
        """The LLM client's settings for one request."""
        return CallSettings(
            timeout_s=self.timeout_s,
            deadline_s=self.deadline_s,
            max_retries=self.max_retries,
            backoff_base_s=self.backoff_base_s,
            backoff_max_s=self.backoff_max_s,
            temperature=sampling.temperature,
            max_tokens=sampling.max_tokens,
        )
