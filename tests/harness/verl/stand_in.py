"""The stand-in policy both `fake_vllm.py` and `fake_verl.py` answer with.

A deterministic function of the model and the instance: the reference (optimal) plan for
validation-suite instances whose id ends in an even digit, prose for the rest, after a reasoning
block that names the model -- so answers from two models differ in text (a test can tell whose
they are) while every model scores the same.
"""

from __future__ import annotations

from mapf_env import Instance, reference_answer


def answer(model: str, instance: Instance | None) -> str:
    """The stand-in's greedy answer to `instance` (None: a prompt it does not know)."""
    good = instance is not None and instance.id is not None and int(instance.id[-1]) % 2 == 0
    text = reference_answer(instance) if good and instance is not None else "No plan, sorry."
    return f"<think>\nthinking as {model}\n</think>\n{text}"
