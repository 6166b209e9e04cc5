"""Reading what users write -- experiment files, generator configs, schedules, answers -- with
bounded work, so a hostile or mistaken input is refused in one line instead of exhausting memory.

Three bounds, each checked before the next step could grow:

* bytes: a file is `stat`-ed and at most `limit + 1` bytes are ever read, so a 50 MB file, a
  character device (``/dev/zero``) or a pipe that never ends costs ``limit`` bytes at most; a
  FIFO nobody writes to reads as empty instead of blocking.
* YAML events: the document is parsed into events (libyaml when present) and its nodes are
  counted *with aliases expanded*, as every later walk over the data (validation, `model_dump`,
  a repr) would see them, so a billion-laughs bomb is refused before anything is built; nesting
  depth is bounded, so no `RecursionError` can come later; a cycle of aliases is refused.
* messages: every error is one line that names the input and never quotes its content.

The limits are generous for real inputs: the biggest shipped YAML files (the paper preset, the
easy-to-hard curriculum) are 2.5 KB, 208 values and 5 levels deep, against 4 MB, 100,000 values
and depth 64.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import yaml

MAX_FILE_BYTES = 4 * 1024 * 1024
"""Largest user-written file read (experiment, generator config, schedule, answer)."""
MAX_YAML_NODES = 100_000
"""Most YAML nodes in one user-written document, aliases counted at every use."""
MAX_YAML_DEPTH = 64
"""Deepest nesting of collections in one user-written document."""
MAX_SHOWN = 120
"""Longest piece of a parser's own message kept in an error line."""

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class InputError(ValueError):
    """A user-written input refused unread or half-read: one line, naming it, never quoting it.

    `reason` is the line without the input's name, for a caller that names it its own way."""

    def __init__(self, reason: str, origin: str | Path | None = None) -> None:
        super().__init__(reason if origin is None else f"{origin}: {reason}")
        self.reason = reason


@dataclass(frozen=True)
class YamlLimits:
    """How much work one YAML document may ask for; `aliases`/`tags` False refuse them outright
    (untrusted model text), True allows them within the node bound (files users write)."""

    max_nodes: int = MAX_YAML_NODES
    max_depth: int = MAX_YAML_DEPTH
    aliases: bool = True
    tags: bool = True


FILE_LIMITS = YamlLimits()
"""The limits of every user-written YAML file and `--set` value."""


def read_text(path: str | Path, *, limit: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of `path`, read only if it has at most `limit` bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputError("no such file", path) from None
    except OSError as err:
        raise InputError(_unreadable(err), path) from None
    mode = os.fstat(fd)
    if stat.S_ISDIR(mode.st_mode) or (stat.S_ISREG(mode.st_mode) and mode.st_size > limit):
        os.close(fd)
        if stat.S_ISDIR(mode.st_mode):
            raise InputError("is a directory; name a file", path)
        raise InputError(_too_large(f"is {_size(mode.st_size)}, more", limit), path)
    if not stat.S_ISREG(mode.st_mode):
        os.set_blocking(fd, True)  # a pipe with a writer is read as it comes, up to the bound
    with os.fdopen(fd, "rb") as f:
        data = _read_upto(f, limit, path)
    return decode(data, path)


def read_stream(stream: IO[bytes], origin: str, *, limit: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of `stream` (stdin), reading at most `limit` + 1 bytes of it."""
    return decode(_read_upto(stream, limit, origin), origin)


def decode(data: bytes, origin: str | Path) -> str:
    """`data` as UTF-8; binary input is one line saying where it stopped being text."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(
            f"not UTF-8 text (byte {err.start} of {len(data)}); is this the right file?", origin
        ) from None


def _read_upto(stream: IO[bytes], limit: int, origin: str | Path) -> bytes:
    try:
        data = stream.read(limit + 1)
    except OSError as err:
        raise InputError(_unreadable(err), origin) from None
    if len(data) > limit:
        raise InputError(_too_large("holds more", limit), origin)
    return data


def _too_large(what: str, limit: int) -> str:
    return f"{what} than the {_size(limit)} limit for an input file; is this the right file?"


def _unreadable(err: OSError) -> str:
    return f"cannot be read ({err.strerror or type(err).__name__})"


def _size(n: int) -> str:
    return f"{n} bytes" if n < 1024 * 1024 else f"{n / (1024 * 1024):.1f} MB"


def load_yaml(text: str, limits: YamlLimits = FILE_LIMITS) -> Any:
    """`text` parsed as YAML with `yaml.safe_load`'s types, after `check_yaml` has bounded it."""
    check_yaml(text, limits)
    try:
        return yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as err:
        raise InputError(yaml_error_line(err)) from None
    except ValueError as err:  # an integer past Python's digit limit, a bad date or base64
        raise InputError(f"a value cannot be read ({shorten(str(err))})") from None


def check_yaml(text: str, limits: YamlLimits = FILE_LIMITS) -> None:
    """Refuse `text` if building it would exceed `limits`; reads events only, builds nothing.

    Aliases are counted at the size of what they repeat (an anchored collection counts all its
    nodes, its own aliases expanded), which is what a bomb multiplies; an alias to a collection
    still open is a cycle and refused.
    """
    counter = _Counter(limits)
    try:
        for event in yaml.parse(text, Loader=_Loader):
            counter.see(event)
    except yaml.YAMLError as err:
        raise InputError(yaml_error_line(err)) from None


class _Frame:
    """An open collection: its anchor, its nodes so far (aliases expanded), its height."""

    def __init__(self, anchor: str | None) -> None:
        self.anchor = anchor
        self.nodes, self.height = 1, 0

    def add(self, nodes: int, height: int) -> None:
        self.nodes += nodes
        self.height = max(self.height, height)


class _Counter:
    """The work a document asks for, event by event: nodes with aliases expanded, depth."""

    def __init__(self, limits: YamlLimits) -> None:
        self.limits = limits
        self.anchored: dict[str, tuple[int, int]] = {}  # anchor -> (nodes expanded, height)
        self.open: list[_Frame] = []
        self.nodes = 0

    def see(self, event: yaml.Event) -> None:
        if isinstance(event, yaml.AliasEvent):
            self._alias(str(event.anchor))
        elif isinstance(event, yaml.CollectionStartEvent):
            self._tag(event)
            self._count(1)
            self.open.append(_Frame(_anchor(event)))
            self._depth(len(self.open))
        elif isinstance(event, yaml.CollectionEndEvent):
            frame = self.open.pop()
            self._finished(frame.anchor, frame.nodes, frame.height + 1)
        elif isinstance(event, yaml.ScalarEvent):
            self._tag(event)
            self._count(1)
            self._finished(_anchor(event), 1, 0)

    def _alias(self, anchor: str) -> None:
        if not self.limits.aliases:
            raise InputError("YAML aliases (*name) are not accepted; write values out")
        if any(frame.anchor == anchor for frame in self.open):
            raise InputError(f"the alias *{shorten(anchor, 40)} repeats a collection inside itself")
        nodes, height = self.anchored.get(anchor, (1, 0))
        self._count(nodes)
        self._depth(len(self.open) + height)
        self._finished(None, nodes, height)

    def _tag(self, event: yaml.NodeEvent) -> None:
        tag = getattr(event, "tag", None)
        if not self.limits.tags and tag not in (None, "!"):
            raise InputError(f"YAML tags ({shorten(str(tag), 60)}) are not accepted")

    def _finished(self, anchor: str | None, nodes: int, height: int) -> None:
        if anchor is not None:
            self.anchored[anchor] = (nodes, height)
        if self.open:
            self.open[-1].add(nodes, height)

    def _count(self, nodes: int) -> None:
        self.nodes += nodes
        if self.nodes > self.limits.max_nodes:
            raise InputError(
                f"the YAML is too large: more than {self.limits.max_nodes} values, aliases "
                "(*name) counted at every use; write the values out or split the file"
            )

    def _depth(self, depth: int) -> None:
        if depth > self.limits.max_depth:
            raise InputError(
                f"the YAML is nested more than {self.limits.max_depth} levels deep; flatten it"
            )


def _anchor(event: yaml.NodeEvent) -> str | None:
    return None if event.anchor is None else str(event.anchor)


def yaml_error_line(err: yaml.YAMLError) -> str:
    """A parser error as one line: where and what, never the quoted source lines."""
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    problem = getattr(err, "problem", None) or getattr(err, "context", None)
    what = shorten(" ".join(str(problem).split())) if problem else type(err).__name__
    return f"not valid YAML{where}: {what}"


def shorten(text: str, limit: int = MAX_SHOWN) -> str:
    """`text` cut to `limit` characters, an ellipsis marking the cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
