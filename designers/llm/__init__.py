"""Model-backed designers: the paper's context modules (F, G, H, S, T), variants V1-V6, prompts,
safe YAML extraction and a LiteLLM client with its own retries. LiteLLM is imported only when a
model is actually called (extra: ``pip install "envdesign-bench[api]"``).
"""

from designers.llm.client import CallResult, CallSettings, Target, complete, scrub
from designers.llm.designer import LLMDesigner, LLMOptions, endpoint_target
from designers.llm.extract import ExtractError, Extraction, extract, try_extract
from designers.llm.variants import DEFAULT_VARIANT, VARIANTS, Variant, get_variant

__all__ = [
    "DEFAULT_VARIANT",
    "VARIANTS",
    "CallResult",
    "CallSettings",
    "ExtractError",
    "Extraction",
    "LLMDesigner",
    "LLMOptions",
    "Target",
    "Variant",
    "complete",
    "endpoint_target",
    "extract",
    "get_variant",
    "scrub",
    "try_extract",
]
