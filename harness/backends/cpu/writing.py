"""How the free learner writes its answer out: each agent's line, with the slip it chose.

An LLM fails in ways a move-by-move policy cannot: it leaves a path out or writes one twice,
forgets the start cell, skips a cell (a jump), or stops mid-answer. The free learner
(`CpuLearnerSettings.actions` = ``free``) gets those mistakes as its own choices: a writing head
on the policy network picks one `Slip` per agent from that agent's first observation, and the
line is written accordingly. Nothing here decides whether the answer fails, or how: the text
goes to the testbed's parser and verifier like any other, and the verifier's first failing
check names the failure (a skipped cell where the agent waited is harmless, a line garbled
beside a dropped one is a parse failure). The slip's log-probability joins the episode's, so
GRPO learns the slips away by the same reward that teaches the moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum

__all__ = ["SLIPS", "Slip", "skipped", "write_answer"]


class Slip(IntEnum):
    """What the writing head can do with one agent's line, and what the verifier will usually
    say about it."""

    NONE = 0
    """Written correctly."""
    DROP = 1
    """The line is left out: *agent_count* (*parse* when every line is)."""
    DUPLICATE = 2
    """The path is written again under the next unused agent number: *agent_count*."""
    NO_START = 3
    """The start cell is left out: *start*, unless the agent waited at t = 0."""
    SKIP = 4
    """The first cell the agent moved into and on from, not back, is left out: *illegal_move*
    (a jump of two cells); a path with no such cell loses its middle cell instead."""
    GARBLE = 5
    """The line stops inside its last cell, like an answer out of tokens: *parse*."""


SLIPS = len(Slip)


def skipped(path: Sequence[int]) -> int | None:
    """Index of the cell a `Slip.SKIP` leaves out of `path` (cells as ids, one move apart or
    equal): the first whose two neighbours on the path are distinct from it and from each
    other, hence two moves apart; else the middle one; None for a path under three cells."""
    if len(path) < 3:
        return None
    for j in range(1, len(path) - 1):
        before, cell, after = path[j - 1], path[j], path[j + 1]
        if before != cell != after != before:
            return j
    return len(path) // 2


def write_answer(paths: Sequence[Sequence[int]], slips: Sequence[int], text: Sequence[str]) -> str:
    """The answer text of one episode: `paths[i]` are agent i's cells as ids into `text`, which
    writes each as ``(r,c)``, and `slips[i]` its `Slip`. With no slips this is what
    `mapf_env.format_plan` writes."""
    lines: list[str] = []
    extra: list[str] = []
    count = len(paths)
    for i, (path, slip) in enumerate(zip(paths, slips, strict=True)):
        if slip == Slip.DROP:
            continue
        cells = list(path)
        if slip == Slip.NO_START:
            cells = cells[1:]
        elif slip == Slip.SKIP:
            gap = skipped(cells)
            if gap is not None:
                del cells[gap]
        body = " ".join([text[c] for c in cells])
        line = f"Agent {i + 1}: {body}"
        if slip == Slip.GARBLE:
            line = line[: line.rfind(",") + 1]
        lines.append(line)
        if slip == Slip.DUPLICATE:
            extra.append(f"Agent {count + len(extra) + 1}: {body}")
    return "\n".join(lines + extra)
