"""Read a policy's answer -- one ``Agent i: (r,c) (r,c) ...`` line per agent -- into a plan.

The parser is the first of the verifier's eight checks, and it runs on every rollout of every
GRPO step, so it is tolerant where models are sloppy in harmless ways and strict where leniency
would let it invent an answer the model did not give. It never raises: anything it cannot read
becomes a `ParseResult` with `error` set, which the verifier reports as the ``parse`` failure.

Rules, in the order they apply:

1. **Reasoning is not the answer.** Every closed ``<think>...</think>`` block is removed. An orphan
   ``</think>`` (chat templates that open the block in the prompt) means only what follows the
   last one counts. An unclosed ``<think>`` runs to the end of the text, so nothing after it is
   read (the model ran out of tokens while thinking). Tags match case-insensitively.
2. **Agent lines.** A line is an agent line when, after optional decoration (bullets ``-``/``*``,
   ``>``, ``#``, ``|``, bold/italic markers, backticks, a list number like ``1.``), it says
   ``Agent <n>`` (also ``agent_<n>``, ``Agent #<n>``, ``Agent <n>'s path``), then optionally ``:``,
   ``=``, ``-`` or ``|``, and then either nothing or a list of cells. A cell is ``(r,c)`` or
   ``[r,c]`` with optional spaces and an optional minus sign (so out-of-bounds answers still
   parse and fail the *bounds* check, not *parse*). Between and around cells only separators
   are allowed: spaces, ``,``, ``;``, ``->``, ``=>``, ``→``, brackets, parentheses, ``.``, ``|``,
   ``:``, backticks, ``*`` and ``_``. So ``[(0,0), (0,1)]``, ``(0,0) -> (0,1)`` and
   ``**Agent 1:** `(0,0) (0,1)``` all read the same.
3. **Prose is not an agent line.** ``Agent 1 starts at (0,0).`` has words before its first cell,
   so it is prose. ``Agent 1: (0,0) wait (0,1)`` starts like an answer but holds a word between
   cells: it is a *malformed* agent line, and if it ends up in the chosen block the answer is a
   parse failure that quotes it (rather than silently dropping the WAIT the model meant).
4. **Continuation lines.** A line holding only cells (and separators) that follows an agent line
   extends that agent's path, so ``Agent 1:`` followed by cells on the next lines works.
5. **Blocks.** Consecutive agent lines form a block; blank lines, code fences (```` ``` ````,
   ``~~~``), rules (``---``) and continuation lines do not break it, any other line does. Within
   a block a repeated agent number replaces the earlier line for that agent (the last wins), the
   way a model corrects itself in place.
6. **Which block counts -- this is what ``n_agents`` is for.** The answer is the *last* block
   naming at least ``n_agents`` agents: the final complete attempt wins, and a trailing fragment
   such as a re-check of one agent's path does not override it. When no block is that large the
   last block is returned as is, so a wrong agent count always reaches the verifier and is
   reported as ``agent_count``, never hidden as ``parse``. ``n_agents`` is used for nothing else.
7. **Numbering.** A block containing ``Agent 0`` is 0-based, otherwise 1-based. Paths come back
   sorted by agent number, with the numbers as written in `ParseResult.numbers`; gaps or a
   wrong count are the verifier's business (``agent_count``), not a parse failure.

Parse failures: no agent line at all, a malformed agent line in the chosen block, or an agent
line in the chosen block with no cells. Numbers are capped at 6 digits, so a huge number is a
malformed line rather than a slow integer conversion.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from envdesign_common.think_tags import strip_think
from mapf_env.instance import Cell, Path, Plan

__all__ = ["ParseResult", "parse"]


_CELL_TEXT = r"[(\[][ \t]*(-?[0-9]{1,6})[ \t]*,[ \t]*(-?[0-9]{1,6})[ \t]*[)\]]"
_CELL = re.compile(_CELL_TEXT)
"""One cell; group 1 is the row, group 2 the column."""

_HEADER = re.compile(
    r"^[ \t>*_#+|`~-]*"  # decoration: bullets, quote, heading, table bar, bold, code
    r"(?:[0-9]{1,3}[.)][ \t*_]*)?"  # an ordered-list number "1." or "1)"
    r"agent[ \t_]*\#?[ \t]*([0-9]{1,6})"  # "Agent 1", "agent_1", "Agent #1"
    r"(?:'s)?[ \t*_`]*(?:path|route|plan|moves)?[ \t*_`]*"
    r"[:=|-]?"  # the separator before the cells
    r"(.*)$",
    re.IGNORECASE | re.MULTILINE,
)
"""An agent line candidate; group 1 is the number, group 2 the rest of the line."""

_SEPARATOR_CHARS = r"[\s,;\-=>→⇒⟶➔\[\]().|:*_`]"
_SEPARATORS = re.compile(_SEPARATOR_CHARS + "*")
"""What may surround cells in an answer line."""
_SMALL = {(str(r), str(c)): (r, c) for r in range(-1, 16) for c in range(-1, 16)}
"""Cells of grids up to 15x15 by their digits, to skip two int() calls per cell."""

_DECORATION = re.compile(r"[ \t]*(?:(?:```|~~~)[\w+-]*|[-*_=#|>~`]*)[ \t\r]*")
"""A line that neither ends a block nor adds to it: blank, a code fence, a rule."""


@dataclass(frozen=True, slots=True)
class ParseResult:
    """The plan read from a response, or why none could be read.

    A slots dataclass rather than a pydantic model: one is built per rollout, and validation
    would cost more than the parse itself while checking nothing the parser has not built.
    """

    paths: Plan | None
    """One path per agent, sorted by agent number; None on failure."""
    numbers: tuple[int, ...] = ()
    """Agent numbers as written, sorted; lets the verifier reject gaps such as 1, 3."""
    base: int = 1
    """0 when the block had an ``Agent 0`` line, else 1."""
    error: str | None = None
    """Why parsing failed; None on success."""

    @property
    def ok(self) -> bool:
        return self.error is None


_NO_ANSWER = ParseResult(None, error="no 'Agent <n>: (r,c) (r,c) ...' line found")


def _cells(body: str) -> list[Cell] | None:
    """The cells of a clean answer body (only cells and separators), else None.

    One `split` yields both the cells and what lies between them; small cells come from a
    table through a C-level `map`, which is most of the parser's speed on long answers.
    """
    parts = _CELL.split(body)
    if _SEPARATORS.fullmatch("".join(parts[::3])) is None:
        return None
    pairs = list(zip(parts[1::3], parts[2::3], strict=True))
    cells = list(map(_SMALL.get, pairs))
    if None in cells:
        return [(int(r), int(c)) for r, c in pairs]
    return cells  # type: ignore[return-value]  # no None left


def _is_answer_start(body: str) -> bool:
    """True when `body` is empty or begins with a cell (after separators): an answer, not prose."""
    first = _CELL.search(body)
    head = body if first is None else body[: first.start()]
    return _SEPARATORS.fullmatch(head) is not None


class _Block:
    """Agent lines read so far in one block: number -> cells, or an error string."""

    __slots__ = ("entries", "last")

    def __init__(self) -> None:
        self.entries: dict[int, list[Cell] | str] = {}
        self.last: int | None = None

    def add(self, number: int, entry: list[Cell] | str) -> None:
        self.entries.pop(number, None)  # the last line for an agent wins
        self.entries[number] = entry
        self.last = number

    def extend(self, cells: list[Cell]) -> None:
        assert self.last is not None
        entry = self.entries[self.last]
        if not isinstance(entry, str):
            entry.extend(cells)


def _scan_gap(text: str, block: _Block) -> bool:
    """Read the lines after an agent line; True when they end the block (a prose line)."""
    for line in text.split("\n"):
        if _DECORATION.fullmatch(line):
            continue
        cells = _cells(line)
        if not cells:
            return True
        block.extend(cells)
    return False


def _blocks(text: str) -> list[_Block]:
    blocks: list[_Block] = []
    current: _Block | None = None
    prev_end = 0
    pending: tuple[int, list[Cell] | str] | None = None
    for m in _HEADER.finditer(text):
        body = m.group(2)
        cells = _cells(body)
        if cells is None and not _is_answer_start(body):
            continue  # prose that happens to start with "Agent n"
        if current is not None and pending is not None:
            current.add(*pending)
            if _scan_gap(text[prev_end + 1 : m.start()], current):
                current = None
        if current is None:
            current = _Block()
            blocks.append(current)
        entry = (
            cells if cells is not None else f"malformed agent line: {m.group(0).strip()[:120]!r}"
        )
        pending = (int(m.group(1)), entry)
        prev_end = m.end()
    if current is not None and pending is not None:
        current.add(*pending)
        _scan_gap(text[prev_end + 1 :], current)
    return blocks


def _result(block: _Block) -> ParseResult:
    numbers = tuple(sorted(block.entries))
    paths: list[Path] = []
    for number in numbers:
        entry = block.entries[number]
        if isinstance(entry, str):
            return ParseResult(None, numbers, error=f"Agent {number}: {entry}")
        if not entry:
            return ParseResult(None, numbers, error=f"Agent {number} lists no cells")
        paths.append(tuple(entry))
    return ParseResult(tuple(paths), numbers, base=0 if 0 in block.entries else 1)


def parse(text: str, n_agents: int) -> ParseResult:
    """Read the answer in `text` for an instance with `n_agents` agents; never raises.

    `n_agents` only picks the block (the last one naming at least that many agents, else the
    last one); it never filters agents, so a count mismatch reaches the verifier.
    """
    try:
        blocks = _blocks(strip_think(text))
    except Exception as exc:  # pragma: no cover - a bug here must not kill a training step
        return ParseResult(None, error=f"parser error {type(exc).__name__}: {exc}")
    if not blocks:
        return _NO_ANSWER
    chosen = next((b for b in reversed(blocks) if len(b.entries) >= n_agents), blocks[-1])
    return _result(chosen)
