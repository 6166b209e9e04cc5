"""Entry-point targets of the LLM designers: hosted models by alias, any LiteLLM model, `self`.

Every alias of ``models.yaml`` (see `designers.llm.models`, which owns the table) is a designer
of its own name: `alias_designers` is the ``harness.designer_families`` entry point that hands
the registry one factory per alias, read from the table when names are listed or looked up, so
the aliases are written down nowhere else. `llm:<model>` takes any LiteLLM model string.
`self_checkpoint` and `base_model` ask the RL checkpoint or the untrained base model served by
the backend (vLLM); they need an endpoint, given as an option or found in the context.
Every factory takes the options of `LLMOptions.build` (variant, max_attempts, timeout_s, ...).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from designers.context import Endpoint
from designers.llm.client import Target
from designers.llm.designer import LLMDesigner, LLMOptions
from designers.llm.models import LLM_PREFIX, ModelAlias, find_alias, model_aliases, resolve_model
from designers.llm.options import HostedOptions, LLMDesignerOptions, ServedOptions


def from_alias(alias: str, **options: Any) -> LLMDesigner:
    """The designer for a `models.yaml` alias (`ModelNameError`, a `ValueError`, if unknown)."""
    return _alias_designer(find_alias(alias), **options)


def _alias_designer(alias: ModelAlias, **options: Any) -> LLMDesigner:
    return _hosted(alias.name, alias.description, alias.model, **options)


def _hosted(
    name: str,
    description: str,
    model: str,
    *,
    api_base: str | None = None,
    api_key_env: str | None = None,
    **options: Any,
) -> LLMDesigner:
    target = Target(model=model, api_base=api_base, api_key_env=api_key_env)
    return LLMDesigner(name, description, LLMOptions.build(**options), target=target)


def alias_designers() -> dict[str, Callable[..., LLMDesigner]]:
    """Alias -> its designer's factory, for every alias in the table as it is now."""
    return {name: _alias_factory(alias) for name, alias in model_aliases().items()}


def _alias_factory(alias: ModelAlias) -> Callable[..., LLMDesigner]:
    def factory(**options: Any) -> LLMDesigner:
        return _alias_designer(alias, **options)

    factory.__name__ = factory.__qualname__ = alias.name
    factory.__doc__ = alias.description
    # `harness designers list` shows the model the alias resolves to right now.
    _declare(factory, HostedOptions, f"{alias.model} (alias in models.yaml), via LiteLLM")
    return factory


def _declare(
    target: Callable[..., LLMDesigner], options_model: type[LLMDesignerOptions], description: str
) -> None:
    """What the registry reads off a factory: its description and options, that it takes a
    context variant, and the tasks its designers serve."""
    setattr(target, "description", description)  # noqa: B010  (mypy: attribute on a callable)
    setattr(target, "options_model", options_model)  # noqa: B010
    setattr(target, "takes_context_variant", True)  # noqa: B010
    setattr(target, "tasks", LLMDesigner.tasks)  # noqa: B010


def llm(arg: str = "", **options: Any) -> LLMDesigner:
    """Any LiteLLM model string as the designer: ``llm:openai/gpt-4o``, or an alias."""
    resolved = resolve_model(LLM_PREFIX + arg)
    if resolved.alias is not None:
        return _alias_designer(resolved.alias, **options)
    model = resolved.model
    return _hosted(
        f"{LLM_PREFIX}{model}", f"{model} as the designer, via LiteLLM", model, **options
    )


def self_checkpoint(
    endpoint: Endpoint | None = None, provider: str = "hosted_vllm", **options: Any
) -> LLMDesigner:
    """The policy's current RL checkpoint designs its own next environment (the paper's)."""
    return LLMDesigner(
        "self",
        "the current RL checkpoint designs its next environment (paper's method, V6)",
        LLMOptions.build(**options),
        endpoint=endpoint,
        endpoint_field="policy_endpoint",
        provider=provider,
    )


def base_model(
    endpoint: Endpoint | None = None, provider: str = "hosted_vllm", **options: Any
) -> LLMDesigner:
    """The untrained base model as the designer (the paper's ablation)."""
    return LLMDesigner(
        "base",
        "the untrained base model designs the environment (ablation)",
        LLMOptions.build(**options),
        endpoint=endpoint,
        endpoint_field="base_endpoint",
        provider=provider,
    )


_declare(llm, HostedOptions, "any LiteLLM model as the designer: llm:<model string>")
_declare(self_checkpoint, ServedOptions, "the current RL checkpoint designs its next environment")
_declare(base_model, ServedOptions, "the untrained base model designs the environment")
