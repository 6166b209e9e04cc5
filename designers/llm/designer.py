"""`LLMDesigner`: a model reads the round's results and writes the next configuration.

One proposal is: render the analysis prompt of the chosen variant (V1-V6), ask the model,
extract the change set; when the answer is unusable, show the model the error and ask again, up
to `max_attempts`; when no attempt works -- bad YAML, a provider outage, a deadline -- keep the
previous configuration. Nothing is raised into the training loop except `DesignerNotReady`
(misconfiguration, caught before training by `check_ready`). Every call, with its reasoning,
tokens, cost and time, goes into the proposal's transcript; every failure into `failures`.
With S in the variant a separate summary request writes 3-5 sentences for the next round.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import ValidationError

from designers.base import BaseDesigner, DesignerNotReady
from designers.context import DesignContext, Endpoint
from designers.llm.client import (
    CallResult,
    CallSettings,
    Target,
    complete,
    credential_problem,
    require_litellm,
)
from designers.llm.extract import Extraction, try_extract, yaml_block
from designers.llm.models import call_record, transcript_entry
from designers.llm.options import LLMDesignerOptions
from designers.llm.variants import (
    Variant,
    analysis_messages,
    get_variant,
    retry_message,
    summary_messages,
)
from designers.options import DesignerOptionsError
from designers.proposal import ModelCall, Proposal
from envdesign_common.field_errors import field_error_lines

EndpointField = Literal["policy_endpoint", "base_endpoint"]
MAX_ECHO_CHARS = 4_000
"""How much of an unusable answer is echoed back to the model on retry."""


@dataclass(frozen=True)
class LLMOptions:
    """Per-designer options, all settable as factory keyword options."""

    variant: Variant
    max_attempts: int = 3
    settings: CallSettings = field(default_factory=CallSettings)

    @classmethod
    def build(cls, **options: Any) -> LLMOptions:
        """Options from keywords (`variant`, `max_attempts`, `timeout_s`, ...), checked by
        `LLMDesignerOptions` (`DesignerOptionsError` names each bad one)."""
        try:
            parsed = LLMDesignerOptions.model_validate(options)
        except ValidationError as err:
            raise DesignerOptionsError(field_error_lines(err, LLMDesignerOptions)) from None
        return cls(
            variant=get_variant(parsed.variant, training_details=parsed.training_details),
            max_attempts=parsed.max_attempts,
            settings=parsed.call_settings(),
        )


def endpoint_target(endpoint: Endpoint, provider: str = "hosted_vllm") -> Target:
    """A LiteLLM target for an OpenAI-compatible server (vLLM) serving `endpoint.model`."""
    return Target(
        model=f"{provider}/{endpoint.model}",
        api_base=endpoint.base_url,
        api_key_env=endpoint.api_key_env,
    )


class LLMDesigner(BaseDesigner):
    """Asks a model for the next configuration, with the paper's context modules; for any
    task (the paper's prompts for MAPF-FrozenLake, general ones from the task's own
    description and knobs for the others)."""

    tasks = None

    def __init__(
        self,
        name: str,
        description: str,
        options: LLMOptions,
        *,
        target: Target | None = None,
        endpoint: Endpoint | None = None,
        endpoint_field: EndpointField | None = None,
        provider: str = "hosted_vllm",
    ) -> None:
        if (target is None) == (endpoint_field is None):
            raise ValueError("give exactly one of target (a model) or endpoint_field (a server)")
        self.name = name  # type: ignore[misc]  # instance names: one class, many designers
        self.description = description  # type: ignore[misc]
        self.options = options
        self._target = target
        self._endpoint = endpoint
        self._endpoint_field = endpoint_field
        self._provider = provider

    @property
    def backend_endpoints(self) -> tuple[Literal["policy", "base"], ...]:
        """`self`/`base` without an endpoint option read the one the backend serves."""
        if self._endpoint is not None or self._endpoint_field is None:
            return ()
        return ("policy",) if self._endpoint_field == "policy_endpoint" else ("base",)

    def check_ready(self) -> None:
        """Fail before training when the model cannot be reached as configured: litellm
        missing, or a hosted model's key not in the environment (a served model is checked
        by the harness, which knows whether its backend serves one)."""
        try:
            require_litellm()
        except ImportError as err:
            raise DesignerNotReady(str(err)) from None
        if self.backend_endpoints:
            return
        target = self.target(None)
        if self._target is not None:
            problem = credential_problem(target, self.name, f"designer_options.{self.name}."
                                         "api_key_env")  # fmt: skip
            if problem is not None:
                raise DesignerNotReady(problem)

    def target(self, ctx: DesignContext | None) -> Target:
        """The model to ask; for `self`/`base`, the endpoint option or the context's."""
        if self._target is not None:
            return self._target
        endpoint = self._endpoint
        if endpoint is None and ctx is not None and self._endpoint_field is not None:
            endpoint = getattr(ctx, self._endpoint_field)
        if endpoint is None:
            raise DesignerNotReady(
                f"designer {self.name!r} needs a served model but no endpoint is configured: "
                f"pass endpoint=Endpoint(base_url=..., model=...) or run it under a backend "
                f"that serves checkpoints (e.g. verl + vLLM) so the context has "
                f"{self._endpoint_field}"
            )
        return endpoint_target(endpoint, self._provider)

    def propose(self, ctx: DesignContext) -> Proposal:
        started = time.perf_counter()
        target = self.target(ctx)
        calls: list[ModelCall] = []
        failures: list[str] = []
        found = self._analyse(ctx, target, calls, failures)
        summary = None
        unreachable = isinstance(found, CallResult)  # the model never answered: ask no more
        if self.options.variant.summarises and not unreachable:
            extraction = found if isinstance(found, Extraction) else None
            summary = self._summarise(ctx, target, extraction, calls, failures)
        extra: dict[str, Any] = {
            "summary": summary,
            "transcript": tuple(calls),
            "failures": tuple(failures),
        }
        if isinstance(found, Extraction):
            return self.package(ctx, found.changes, rationale(found.visible), started, **extra)
        reason = (
            found.failure or "model call failed"
            if isinstance(found, CallResult)
            else f"no usable change set in {self.options.max_attempts} attempts"
        )
        return self.package(ctx, {}, "", started, kept_previous=True, failure_reason=reason,
                            **extra)  # fmt: skip

    def _call(
        self,
        purpose: str,
        target: Target,
        messages: list[dict[str, str]],
        calls: list[ModelCall],
        failures: list[str],
    ) -> CallResult:
        """Ask once; the call goes into `calls`, its retries and any failure into `failures`."""
        result = complete(target, messages, self.options.settings, seed=len(calls))
        record = call_record(result)
        calls.append(transcript_entry(purpose, target.model, messages, record))
        failures += [f"{purpose}: retried after {r}" for r in record["retries"]]
        if result.error is not None:
            failures.append(f"{purpose}: model call failed: {result.error}")
        return result

    def _analyse(
        self, ctx: DesignContext, target: Target, calls: list[ModelCall], failures: list[str]
    ) -> Extraction | CallResult | None:
        """Ask, extract, and on an unusable answer ask again with the error shown.

        Returns the extraction; the failed call when the model could not be reached (the
        transport already retried what could succeed); None when no answer was usable.
        """
        messages = analysis_messages(ctx, self.options.variant)
        for attempt in range(1, self.options.max_attempts + 1):
            purpose = "analysis" if attempt == 1 else f"analysis retry {attempt - 1}"
            result = self._call(purpose, target, messages, calls, failures)
            if result.error is not None:
                return result
            found = try_extract(result.text, ctx.config, ctx.design_task())
            if isinstance(found, Extraction):
                return found
            failures.append(f"{purpose}: {found}")
            messages = [
                *messages,
                {"role": "assistant", "content": result.text[:MAX_ECHO_CHARS]},
                retry_message(ctx, found),
            ]
        failures.append(f"no usable answer in {self.options.max_attempts} attempts; kept previous")
        return None

    def _summarise(
        self,
        ctx: DesignContext,
        target: Target,
        found: Extraction | None,
        calls: list[ModelCall],
        failures: list[str],
    ) -> str | None:
        """S: a separate request for 3-5 sentences on this round, fed back next round."""
        config = found.projection.config if found is not None else ctx.config
        why = rationale(found.visible) if found is not None else "(no usable proposal; kept)"
        proposed = ctx.design_task().config_yaml(config)
        messages = summary_messages(ctx, self.options.variant, proposed, why)
        result = self._call("summary", target, messages, calls, failures)
        if result.error is not None:
            return None
        text = result.text.strip()
        if not text:
            failures.append("summary: the model returned no text")
            return None
        return text[:MAX_ECHO_CHARS]


def rationale(visible: str) -> str:
    """The answer's prose: the visible text without its YAML block, kept short."""
    block = yaml_block(visible)
    prose = visible.replace(block, "").replace("```yaml", "").replace("```", "").strip()
    return prose[:MAX_ECHO_CHARS]
