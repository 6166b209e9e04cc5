"""The options every LLM designer accepts, as typed models checked before training.

`LLMDesignerOptions` holds what all of them share (context variant, attempts, the request's
timeouts and sampling); hosted models add where to send requests (`HostedOptions`), and the
designers that ask a served checkpoint (`self`, `base`) add the server (`ServedOptions`).
"""

from __future__ import annotations

from pydantic import Field, field_validator

from designers.context import Endpoint
from designers.llm.client import CallSettings
from designers.llm.variants import DEFAULT_VARIANT, VARIANTS


class LLMDesignerOptions(CallSettings):
    """Options of every LLM designer: the request settings plus how the designer asks."""

    variant: str = Field(DEFAULT_VARIANT, description="Context variant, V1..V6 (paper: V6).")
    max_attempts: int = Field(3, ge=1, description="Analysis attempts before keeping the config.")
    training_details: bool = Field(False, description="Show full RL details in module T.")

    @field_validator("variant")
    @classmethod
    def _known_variant(cls, value: str) -> str:
        if value.strip().upper() not in VARIANTS:
            raise ValueError(f"unknown variant {value!r}; choose one of {', '.join(VARIANTS)}")
        return value

    def call_settings(self) -> CallSettings:
        """The request settings alone."""
        return CallSettings(**{name: getattr(self, name) for name in CallSettings.model_fields})


class HostedOptions(LLMDesignerOptions):
    """Options of a hosted model designer (`gpt`, `gemini`, ..., `llm:<model>`)."""

    api_base: str | None = Field(None, description="An OpenAI-compatible server to ask instead.")
    api_key_env: str | None = Field(
        None, description="The environment variable holding the key (default: the provider's)."
    )


class ServedOptions(LLMDesignerOptions):
    """Options of `self` and `base`, which ask a served checkpoint."""

    endpoint: Endpoint | None = Field(
        None,
        description="The server to ask, e.g. {base_url: http://127.0.0.1:8000/v1, model: NAME}; "
        "default: the one the training backend serves.",
    )
    provider: str = Field("hosted_vllm", description="LiteLLM provider prefix of the server.")
