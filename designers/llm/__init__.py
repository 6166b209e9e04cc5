"""Model-backed designers: the paper's context modules (F, G, H, S, T), variants V1-V6, prompts,
safe YAML extraction, a LiteLLM client with its own retries, and the model names (aliases,
``llm:<model>``) and call records shared with policy evaluation. LiteLLM is imported only when a
model is actually called (extra: ``pip install "envdesign-bench[api]"``).
"""

from designers.llm.client import CallResult, CallSettings, Target, complete, scrub
from designers.llm.designer import LLMDesigner, LLMOptions, endpoint_target
from designers.llm.extract import ExtractError, Extraction, extract, try_extract
from designers.llm.models import (
    CallRecord,
    ModelAlias,
    ModelNameError,
    ResolvedModel,
    call_record,
    model_aliases,
    resolve_model,
)
from designers.llm.variants import DEFAULT_VARIANT, VARIANTS, Variant, get_variant

__all__ = [
    "DEFAULT_VARIANT",
    "VARIANTS",
    "CallRecord",
    "CallResult",
    "CallSettings",
    "ExtractError",
    "Extraction",
    "LLMDesigner",
    "LLMOptions",
    "ModelAlias",
    "ModelNameError",
    "ResolvedModel",
    "Target",
    "Variant",
    "call_record",
    "complete",
    "endpoint_target",
    "extract",
    "get_variant",
    "model_aliases",
    "resolve_model",
    "scrub",
    "try_extract",
]
