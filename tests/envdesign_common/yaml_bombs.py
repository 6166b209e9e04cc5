"""Billion-laughs YAML for the tests of every reader: anchors that each repeat the one before."""

from __future__ import annotations

import itertools

NAMES = "abcdefghi"


def laughs(levels: int = 9, indent: str = "", leaf: str = "lol") -> str:
    """Keys a..: `a` a list of nine leaves, each next one nine aliases of the one before, so
    the last key's anchor (``*i`` for 9 levels) stands for 9**levels leaves; YAML lines."""
    lines = [f"{indent}a: &a [{', '.join([leaf] * 9)}]"]
    for below, name in itertools.pairwise(NAMES[:levels]):
        lines.append(f"{indent}{name}: &{name} [{', '.join([f'*{below}'] * 9)}]")
    return "\n".join(lines) + "\n"
