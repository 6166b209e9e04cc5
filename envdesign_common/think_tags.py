"""Model text without its reasoning: what a model wrote between ``<think>`` tags is not its answer.

Both the testbed's answer parser and the LLM designers read model text this way, so that a path
or a configuration mentioned while thinking is never taken as the answer. Every closed
``<think>...</think>`` block is removed; an orphan ``</think>`` (chat templates that open the
block in the prompt) means only what follows the last one counts; an unclosed ``<think>`` runs to
the end of the text. Tags match case-insensitively.
"""

from __future__ import annotations

import re

__all__ = ["strip_think"]

_THINK_TAG = re.compile(r"<(/?)think>", re.IGNORECASE)


def strip_think(text: str) -> str:
    """Drop the reasoning so that paths mentioned while thinking are never taken as the answer."""
    if "k>" not in text and "K>" not in text:  # str.find is far cheaper than any regex
        return text
    kept: list[str] = []  # text outside reasoning; one linear pass, whatever the nesting
    pos, inside = 0, False
    for tag in _THINK_TAG.finditer(text):
        if tag.group(1):  # </think>
            if not inside:
                kept.clear()  # an orphan: everything before it was reasoning
            inside, pos = False, tag.end()
        elif not inside:
            kept.append(text[pos : tag.start()])
            inside = True
    if not inside:
        kept.append(text[pos:])
    return "\n".join(kept)
