"""The toy budget every end-to-end test of the trl backend runs at on this CPU.

2 rounds of 2 items, n = 2 answers of at most `ANSWER_TOKENS` tokens in one optimiser step per
round, 2 items per suite, best of 2, one seed; the LLM designers (`self`, `base`) may write
`LLM_TOKENS` tokens once, under a deadline a CPU meets.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

ANSWER_TOKENS = 24
LLM_TOKENS = 48
LLM_OPTIONS = {"max_tokens": LLM_TOKENS, "max_attempts": 1, "timeout_s": 300, "deadline_s": 600}


def tiny_experiment(
    name: str, policy: Path, designers: Sequence[str], **extra: Any
) -> dict[str, Any]:
    """The experiment's mapping; `extra` adds or replaces top-level keys, and a ``trl`` key's
    settings are laid over the toy ones."""
    served = [d for d in designers if d in ("self", "base")]
    trl = {
        "max_response_length": ANSWER_TOKENS,
        "prompts_per_step": 2,
        "micro_batch_size": 4,
        "eval_batch_size": 8,
        **extra.pop("trl", {}),
    }
    return {
        "name": name,
        "backend": "trl",
        "policy": str(policy),
        "rounds": 2,
        "samples_per_round": 2,
        "epochs_per_round": 1,
        "grpo": {"group_size": 2, "learning_rate": 1.0e-5, "kl_coef": 1.0e-3},
        "designers": list(designers),
        "designer_options": dict.fromkeys(served, LLM_OPTIONS),
        "seeds": [0],
        "best_of": 2,
        "limit": 2,
        "trl": trl,
        **extra,
    }
