"""The stand-in policy both `fake_vllm.py` and `fake_verl.py` answer with.

A deterministic function of the model and the item: the reference answer for MAPF-FrozenLake's
validation-suite instances whose id ends in an even digit (for another task's item, for those
whose text's sha256 is even), prose for the rest, after a reasoning block that names the model
-- so answers from two models differ in text (a test can tell whose they are) while every model
scores the same.
"""

from __future__ import annotations

import hashlib
from typing import Any

from mapf_env import Instance, reference_answer

PROSE = "No plan, sorry."


def answer(model: str, item: Any, task: Any = None) -> str:
    """The stand-in's greedy answer to `item` of `task` (None: a MAPF-FrozenLake instance, or
    no item: a prompt it does not know)."""
    if isinstance(item, Instance):
        good = item.id is not None and int(item.id[-1]) % 2 == 0
        text = reference_answer(item) if good else PROSE
    elif item is not None and task is not None:
        digest = hashlib.sha256(task.encode_item(item).encode("utf-8")).digest()
        text = (task.reference_answer(item) or PROSE) if digest[-1] % 2 == 0 else PROSE
    else:
        text = PROSE
    return f"<think>\nthinking as {model}\n</think>\n{text}"
