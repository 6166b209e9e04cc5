"""Keys never reach a file: the values of key variables are masked in everything written.

A model may echo what it was sent (an endpoint that returns the request's headers, a 401 that
quotes the key back, often without its ``sk-`` prefix), so masking secret-looking tokens in
error strings is not enough: the *values* of the key variables a run uses are searched for in
every text before it is stored, whole and as any run of `MIN_SECRET_CHARS` or more of their
characters, and each match becomes ``[redacted:<VARIABLE>]`` -- the variable's name, never its
value.

Which variables: the ones a run names for its keys (``api_key_env`` options, wherever they sit
in a config: `key_env_names`), always; and every variable whose name says it holds a key
(``OPENAI_API_KEY``, ``HF_TOKEN``), when its value looks like one -- long, no spaces, letters
and digits, not a URL or path -- so that a ``TOKEN``-named setting such as a URL cannot turn
ordinary words of a record into markers. A variable's name is not its secret: runs of a value
that also occur in a variable's name are not searched for on their own, since records name the
variables they read keys from.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "MIN_SECRET_CHARS",
    "Redactor",
    "key_env_names",
    "key_redactor",
    "looks_like_key_variable",
]

MIN_SECRET_CHARS = 8
"""The shortest run of a key's characters that is masked; a shorter value is not a key."""
MIN_FOUND_KEY_CHARS = 16
"""A variable found by its name alone must hold at least this many characters to count."""
_KEY_VARIABLE = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL", re.IGNORECASE)
_KEY_SHAPE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_\-.+/=]+")
_KEY_ENV_OPTION = re.compile(r"(?:^|_)key_env$")


def looks_like_key_variable(name: str) -> bool:
    """Whether a variable's name says it holds a credential (``*_API_KEY``, ``*_TOKEN``...)."""
    return _KEY_VARIABLE.search(name) is not None


def _looks_like_key(value: str) -> bool:
    """A credential's shape: long, one word, letters and digits, neither a URL nor a path."""
    return (
        len(value) >= MIN_FOUND_KEY_CHARS
        and _KEY_SHAPE.fullmatch(value) is not None
        and "//" not in value
        and any(c.isdigit() for c in value)
        and any(c.isalpha() for c in value)
    )


@dataclass(frozen=True)
class _Secret:
    variable: str
    value: str
    grams: frozenset[str]
    """Every run of `MIN_SECRET_CHARS` characters of the value not inside a variable name."""


@dataclass(frozen=True)
class Redactor:
    """Masks the values of some key variables in text; empty when there is nothing to mask."""

    secrets: tuple[_Secret, ...] = ()

    @classmethod
    def of(cls, values: Mapping[str, str]) -> Redactor:
        """A redactor for `values` (variable -> value); values shorter than `MIN_SECRET_CHARS`
        are left out. A value's JSON-escaped form is searched for too, so a record serialised
        as JSON is masked as well as the text it was made from."""
        names = list(values)
        secrets: dict[tuple[str, str], _Secret] = {}
        for variable, value in values.items():
            if len(value) < MIN_SECRET_CHARS:
                continue
            for form in {value, json.dumps(value)[1:-1]}:
                grams = {form[i : i + MIN_SECRET_CHARS] for i in range(len(form) - 7)}
                kept = frozenset(g for g in grams if not any(g in name for name in names))
                if kept:
                    secrets[variable, form] = _Secret(variable, form, kept)
        return cls(tuple(secrets.values()))

    def __bool__(self) -> bool:
        return bool(self.secrets)

    def redact(self, text: str) -> str:
        """`text` with every run of `MIN_SECRET_CHARS`+ characters of a secret replaced by
        ``[redacted:<VARIABLE>]``."""
        spans: list[tuple[int, int, str]] = []
        for secret in self.secrets:
            for gram in secret.grams:
                if gram in text:
                    spans += _matches(text, gram, secret)
        if not spans:
            return text
        out, at = [], 0
        for start, end, variable in _merged(spans):
            out += [text[at:start], f"[redacted:{variable}]"]
            at = end
        out.append(text[at:])
        return "".join(out)

    def redact_all(self, texts: Iterable[str]) -> tuple[str, ...]:
        return tuple(self.redact(t) for t in texts)


def _matches(text: str, gram: str, secret: _Secret) -> list[tuple[int, int, str]]:
    """Each occurrence of `gram` in `text`, grown on both sides for as long as the text goes on
    to match the secret around that gram (every place the gram sits in the secret)."""
    value, found = secret.value, []
    offsets = [i for i in range(len(value) - len(gram) + 1) if value.startswith(gram, i)]
    at = text.find(gram)
    while at >= 0:
        for offset in offsets:
            start, before = at, offset  # grow left while the characters before agree
            while before > 0 and start > 0 and text[start - 1] == value[before - 1]:
                start, before = start - 1, before - 1
            end, after = at + len(gram), offset + len(gram)  # and right
            while after < len(value) and end < len(text) and text[end] == value[after]:
                end, after = end + 1, after + 1
            found.append((start, end, secret.variable))
        at = text.find(gram, at + 1)
    return found


def _merged(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Overlapping spans joined, in order; a joined span keeps the first one's variable."""
    merged: list[tuple[int, int, str]] = []
    for start, end, variable in sorted(spans):
        if merged and start <= merged[-1][1]:
            first_start, first_end, first_variable = merged[-1]
            merged[-1] = (first_start, max(first_end, end), first_variable)
        else:
            merged.append((start, end, variable))
    return merged


def key_redactor(
    named: Iterable[str | None] = (), environ: Mapping[str, str] | None = None
) -> Redactor:
    """The redactor of a run: the variables it names (`named`; unset ones are skipped) and
    every variable whose name and value look like a key (see the module docstring)."""
    env = os.environ if environ is None else environ
    wanted = {name for name in named if name}
    values = {
        name: value
        for name, value in env.items()
        if name in wanted or (looks_like_key_variable(name) and _looks_like_key(value))
    }
    return Redactor.of(values)


def key_env_names(config: Any) -> list[str]:
    """The variables a config names for keys: the string value of every ``api_key_env`` (or
    other ``*key_env``) field at any depth of its mappings and lists."""
    found: list[str] = []
    stack = [config]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            for key, value in item.items():
                if isinstance(value, str) and _KEY_ENV_OPTION.search(str(key)):
                    found.append(value)
                else:
                    stack.append(value)
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return sorted(set(found))
