"""Entry-point targets of the LLM designers: hosted models by alias, any LiteLLM model, `self`.

`gpt`, `gemini`, `grok`, `kimi` and `claude` resolve their model through ``models.yaml``
(package data), which a user can override with ``ENVDESIGN_LLM_MODELS=/path/models.yaml``, so
a renamed provider model needs no code change. `llm:<model>` takes any LiteLLM model string.
`self_checkpoint` and `base_model` ask the RL checkpoint or the untrained base model served by
the backend (vLLM); they need an endpoint, given as an option or found in the context.
Every factory takes the options of `LLMOptions.build` (variant, max_attempts, timeout_s, ...).
"""

from __future__ import annotations

import os
from importlib.resources import files
from pathlib import Path
from typing import Any

import yaml

from designers.context import Endpoint
from designers.llm.client import Target
from designers.llm.designer import LLMDesigner, LLMOptions
from designers.llm.options import HostedOptions, ServedOptions

MODELS_ENV = "ENVDESIGN_LLM_MODELS"


def model_aliases() -> dict[str, dict[str, str]]:
    """Alias -> {model, description}: the shipped table, updated from $ENVDESIGN_LLM_MODELS."""
    table = _read_table(files("designers.llm").joinpath("models.yaml").read_text("utf-8"), "")
    override = os.environ.get(MODELS_ENV)
    if override:
        table.update(_read_table(Path(override).read_text(encoding="utf-8"), override))
    return table


def _read_table(text: str, origin: str) -> dict[str, dict[str, str]]:
    data = yaml.safe_load(text) or {}
    where = origin or "designers/llm/models.yaml"
    if not isinstance(data, dict):
        raise ValueError(f"{where}: expected a mapping of alias -> {{model, description}}")
    table: dict[str, dict[str, str]] = {}
    for alias, entry in data.items():
        if isinstance(entry, str):
            entry = {"model": entry}
        if not isinstance(entry, dict) or not isinstance(entry.get("model"), str):
            raise ValueError(f"{where}: alias {alias!r} needs a 'model' string")
        table[str(alias)] = {
            "model": entry["model"],
            "description": str(entry.get("description", f"{entry['model']} via LiteLLM")),
        }
    return table


def from_alias(alias: str, **options: Any) -> LLMDesigner:
    """The designer for a `models.yaml` alias."""
    table = model_aliases()
    if alias not in table:
        raise ValueError(f"no model alias {alias!r} in models.yaml; known: {sorted(table)}")
    entry = table[alias]
    return _hosted(alias, entry["description"], entry["model"], **options)


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


def gpt(**options: Any) -> LLMDesigner:
    """GPT (alias `gpt` in models.yaml) as the designer."""
    return from_alias("gpt", **options)


def gemini(**options: Any) -> LLMDesigner:
    """Gemini (alias `gemini` in models.yaml) as the designer."""
    return from_alias("gemini", **options)


def grok(**options: Any) -> LLMDesigner:
    """Grok (alias `grok` in models.yaml) as the designer."""
    return from_alias("grok", **options)


def kimi(**options: Any) -> LLMDesigner:
    """Kimi (alias `kimi` in models.yaml) as the designer."""
    return from_alias("kimi", **options)


def claude(**options: Any) -> LLMDesigner:
    """Claude (alias `claude` in models.yaml) as the designer."""
    return from_alias("claude", **options)


def llm(arg: str = "", **options: Any) -> LLMDesigner:
    """Any LiteLLM model string as the designer: ``llm:openai/gpt-4o``, or an alias."""
    model = arg.strip()
    if not model:
        raise ValueError("llm needs a model: llm:<litellm model string>, e.g. llm:openai/gpt-4o")
    if model in model_aliases():
        return from_alias(model, **options)
    return _hosted(f"llm:{model}", f"{model} as the designer, via LiteLLM", model, **options)


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


def _alias_description(alias: str) -> str:
    """What `harness designers list` shows for an alias: the model it resolves to right now."""
    try:
        return f"{model_aliases()[alias]['model']} (alias in models.yaml), via LiteLLM"
    except (OSError, ValueError, KeyError) as err:
        return f"{alias}: models.yaml problem: {err}"


for _factory in (gpt, gemini, grok, kimi, claude):
    _factory.description = _alias_description(_factory.__name__)  # type: ignore[attr-defined]
llm.description = "any LiteLLM model as the designer: llm:<model string>"  # type: ignore[attr-defined]
for _target in (gpt, gemini, grok, kimi, claude, llm, self_checkpoint, base_model):
    setattr(_target, "takes_context_variant", True)  # noqa: B010  (mypy: attribute on a union)
    served = _target in (self_checkpoint, base_model)
    setattr(_target, "options_model", ServedOptions if served else HostedOptions)  # noqa: B010
self_checkpoint.description = "the current RL checkpoint designs its next environment"  # type: ignore[attr-defined]
base_model.description = "the untrained base model designs the environment"  # type: ignore[attr-defined]
