"""One line per bad field: the formatter every configuration error goes through.

Users write configs by hand (experiment YAML, `--set`, generator configs, designer options,
curricula) and models write change sets; either way a mistake should come back as one short line
that names the dotted field path, the offending value, what is allowed and, for a misspelt key at
any depth, the field that was probably meant. Pydantic's raw report repeats one typo once per entry
of a keyed table (a task's per-size settings) and pairs it with a "field required" for the real
name; both are collapsed here: a field annotated with `KeyLabels` names its keys as users write
them, and errors that differ only in such keys share one line. Values are shown through a bounded
repr, so a huge or self-similar document (a YAML alias bomb) can never make the message itself
huge.
"""

from __future__ import annotations

import difflib
import enum
import re
import reprlib
import types
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import ErrorDetails

MAX_REPR = 80
"""Longest shown value: a repr is cut here, never repeated whole."""
MAX_LINES = 20
"""Most lines one report holds; the rest are counted in a final line."""
MAX_READ = 1000
"""Most errors read from one report; a document with more is cut short, not formatted whole."""
MAX_NAMES = 12
"""Most allowed names (fields, choices) listed in one line."""

_BOUNDS = {"gt": "{} <", "ge": "{} <=", "lt": "< {}", "le": "<= {}"}
_SLOT = "\x00key"  # where a labelled key goes in a path template; no YAML key looks like it


class ConfigError(ValueError):
    """A configuration or change set that cannot be read; one line per bad field.

    `lines` holds those lines without the origin (each starting with its dotted field path) when
    they came from the field formatter, so a caller that nests this config in a bigger one (a
    curriculum stage) can re-prefix them; it is empty for a message written by hand.
    """

    def __init__(self, message: str, lines: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.lines = tuple(lines)


@dataclass(frozen=True)
class KeyLabels:
    """Marks a table field (``Annotated[dict[int, X], KeyLabels(size_name)]``) whose keys users
    write in their own form (``7x7``): error lines name a key that way, and errors that differ
    only in such keys share one line listing them (``sizes.{4x4,9x9}.hole_ratio``)."""

    label: Callable[[Any], str]


def _make_repr() -> reprlib.Repr:
    short = reprlib.Repr()
    short.maxlevel = 3
    for name in ("maxtuple", "maxlist", "maxarray", "maxdict", "maxset", "maxfrozenset"):
        setattr(short, name, 4)
    short.maxstring = short.maxother = MAX_REPR
    short.maxlong = 40
    return short


_REPR = _make_repr()


def bounded_repr(value: Any, limit: int = MAX_REPR) -> str:
    """`repr(value)` cut to `limit` characters, built without ever rendering `value` whole."""
    try:
        text = _REPR.repr(value)
    except Exception:  # an int past Python's digit limit, a broken __repr__
        text = f"<{type(value).__name__}>"
    return shorten(text, limit)


def shorten(text: str, limit: int = MAX_REPR) -> str:
    """`text` cut to `limit` characters, an ellipsis marking the cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def field_error_lines(
    err: ValidationError, model: type[BaseModel] | None = None, *, prefix: str = ""
) -> list[str]:
    """One line per bad field of `err`, raised while validating `model`.

    Each line reads ``<prefix><dotted path>: <what is wrong> (got <value>); <what is allowed>;
    did you mean '<x>'?``. With `model` given, misspelt keys get a did-you-mean from the fields
    at that depth, types and ranges are described from the field declarations, and the
    "field required" that a misspelt key causes is dropped.
    """
    return error_details_lines(err.errors(include_url=False), model, prefix=prefix)


def error_details_lines(
    errors: Sequence[ErrorDetails], model: type[BaseModel] | None = None, *, prefix: str = ""
) -> list[str]:
    """`field_error_lines` for a subset of a report's errors (e.g. those one `--set` caused)."""
    found = [_Found.of(e, model) for e in errors[:MAX_READ]]
    suggested = {f.suggested_path for f in found if f.suggested_path is not None}
    holders = {f.loc[:depth] for f in found for depth in range(len(f.loc))}
    kept = [f for f in found if not _echo(f, suggested, holders)]
    groups: dict[tuple[tuple[str, ...], str, str], list[_Found]] = {}
    for f in kept:
        groups.setdefault((f.path_template, f.wrong, f.rest), []).append(f)
    lines = [_render(prefix, items) for items in groups.values()]
    unread = max(0, len(errors) - MAX_READ)
    if len(lines) <= MAX_LINES and not unread:
        return lines
    shown = lines[: MAX_LINES - 1]
    return [*shown, f"{prefix}... and {len(lines) - len(shown) + unread} more bad fields"]


def _echo(found: _Found, suggested: set[tuple[Any, ...]], holders: set[tuple[Any, ...]]) -> bool:
    """Pydantic's echoes of another error: the 'field required' a misspelt key causes, and the
    'too short' of a list whose items were refused (`holders`: locations holding an error)."""
    if found.error["type"] == "missing":
        return found.loc in suggested
    return found.error["type"] == "too_short" and found.loc in holders


def error_message(groups: Sequence[tuple[str, Sequence[str]]]) -> str:
    """A `ConfigError` message from (origin, lines) pairs, the first line naming the origins.

    One line in all: ``<origin>: <line>``. One origin: ``<origin>:`` and its lines indented.
    Several (a file and `--set` values): every indented line starts with its own origin.
    """
    groups = [(origin, lines) for origin, lines in groups if lines]
    if not groups:
        return "invalid configuration"
    if len(groups) == 1 and len(groups[0][1]) == 1:
        return f"{groups[0][0]}: {groups[0][1][0]}"
    if len(groups) == 1:
        return "\n".join([f"{groups[0][0]}:", *(f"  {line}" for line in groups[0][1])])
    head = f"bad fields in {', '.join(origin for origin, _ in groups)}:"
    return "\n".join([head, *(f"  {o}: {line}" for o, lines in groups for line in lines)])


def config_error(
    err: ValidationError, origin: str, model: type[BaseModel] | None = None
) -> ConfigError:
    """The `ConfigError` for `err`: `origin` first, then one line per bad field of `model`."""
    lines = field_error_lines(err, model)
    return ConfigError(error_message([(origin, lines)]), lines)


class _Found:
    """One pydantic error, placed in `model`: its display path and its text after the path."""

    def __init__(self, error: ErrorDetails, walk: _Walk) -> None:
        self.error, self.loc = error, tuple(error["loc"])
        self.path_template, self.keys = walk.template, walk.keys
        hint = _hint(error, walk)
        self.suggested_path = (*self.loc[:-1], hint) if hint and _is_extra(error) else None
        self.wrong = _wrong(error)
        pieces = [_allowed(error, walk), f"did you mean {hint!r}?" if hint else ""]
        self.rest = "; ".join(p for p in pieces if p)
        self.got = _got(error)

    @classmethod
    def of(cls, error: ErrorDetails, model: type[BaseModel] | None) -> _Found:
        return cls(error, _Walk(model, tuple(error["loc"])))


def _render(prefix: str, items: list[_Found]) -> str:
    """One line for errors that differ only in labelled keys; keys and values listed once."""
    parts = list(items[0].path_template)
    for slot in range(len(items[0].keys)):
        names = list(dict.fromkeys(f.keys[slot] for f in items))
        parts[parts.index(_SLOT)] = names[0] if len(names) == 1 else "{" + ",".join(names) + "}"
    path = ".".join(parts)
    head = f"{prefix}{path}" if path else (prefix.rstrip(" .:") or "config")
    values = list(dict.fromkeys(f.got for f in items if f.got is not None))
    got = f" (got {', '.join(values[:3])}{', ...' if len(values) > 3 else ''})" if values else ""
    rest = items[0].rest
    return f"{head}: {items[0].wrong}{got}" + (f"; {rest}" if rest else "")


class _Walk:
    """Where an error's location lands in the model: display path, holder model, field, type."""

    def __init__(self, model: type[BaseModel] | None, loc: tuple[int | str, ...]) -> None:
        self.holder: type[BaseModel] | None = None
        self.field: FieldInfo | None = None
        self.annotation: Any = None
        shown: list[str] = []
        self.keys: list[str] = []
        self.labels: KeyLabels | None = None  # the labels of the table the last step entered
        tp: Any = model
        for i, part in enumerate(loc):
            tp = _strip(tp)
            member = _union_member(tp, part)
            if member is not None:  # pydantic's tag for a union branch: not a key the user wrote
                tp = member
                continue
            if self.labels is not None and isinstance(part, int):
                self.keys.append(self.labels.label(part))
                shown.append(_SLOT)
            else:
                shown.append(str(part))
            tp = self._step(tp, part, last=i == len(loc) - 1)
        self.template = tuple(shown)
        self.annotation = tp

    def _step(self, tp: Any, part: int | str, *, last: bool) -> Any:
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            self.holder, self.field = tp, _field(tp, part)
            self.labels = _key_labels(self.field)
            return self.field.annotation if self.field else None
        self.holder, self.field, self.labels = None, None, None
        origin, args = get_origin(tp), get_args(tp)
        if origin in (dict, Mapping) and len(args) == 2:
            return args[1]
        if origin in (list, tuple, set, frozenset, Sequence) and args:
            return args[0]
        return None


def _key_labels(field: FieldInfo | None) -> KeyLabels | None:
    found = [m for m in field.metadata if isinstance(m, KeyLabels)] if field else []
    return found[0] if found else None


def _strip(tp: Any) -> Any:
    """`X` for `Annotated[X, ...]` and for `X | None`."""
    while get_origin(tp) is Annotated:
        tp = get_args(tp)[0]
    if _is_union(tp):
        members = [m for m in get_args(tp) if m is not type(None)]
        if len(members) == 1:
            return _strip(members[0])
    return tp


def _is_union(tp: Any) -> bool:
    return get_origin(tp) in (Union, types.UnionType)


def _union_member(tp: Any, part: int | str) -> Any:
    if not _is_union(tp) or not isinstance(part, str):
        return None
    for member in get_args(tp):
        if getattr(get_origin(member) or member, "__name__", None) == part.split("[")[0]:
            return member
    return None


def _field(model: type[BaseModel], part: int | str) -> FieldInfo | None:
    for name, info in model.model_fields.items():
        if part in (name, info.alias):
            return info
    return None


def _is_extra(error: ErrorDetails) -> bool:
    return error["type"] == "extra_forbidden"


def _hint(error: ErrorDetails, walk: _Walk) -> str | None:
    """The closest allowed name: a field for a misspelt key, a choice for a misspelt value."""
    if _is_extra(error) and walk.holder is not None:
        names = list(walk.holder.model_fields)
        word = str(error["loc"][-1])
    elif error["type"] in ("literal_error", "enum") and isinstance(error.get("input"), str):
        names, word = _choices(error, walk), str(error["input"])
    else:
        return None
    return closest(word, names)


def unknown_name(what: str, name: str, names: Sequence[str]) -> str:
    """The message for a name nothing ships under: the shipped names and the closest one."""
    hint = closest(name, names)
    return (
        f"no {what} {bounded_repr(name)}: the shipped ones are {_names(names)}"
        + (f"; did you mean {hint!r}?" if hint else "")
        + " (or give the path of a YAML file)"
    )


def closest(word: str, names: Iterable[str]) -> str | None:
    """The name `word` was most likely meant to be, if one is close enough."""
    close = difflib.get_close_matches(word, list(names), n=1)
    return close[0] if close else None


def _choices(error: ErrorDetails, walk: _Walk) -> list[str]:
    tp = _strip(walk.annotation)
    if get_origin(tp) is Literal:
        return [str(a) for a in get_args(tp)]
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return [str(m.value) for m in tp]
    return re.findall(r"'([^']*)'", str(error.get("ctx", {}).get("expected", "")))


def _got(error: ErrorDetails) -> str | None:
    """The offending value, bounded; none for a missing field or a whole section's check."""
    kind = error["type"]
    if kind == "missing" or "input" not in error:
        return None
    if kind in ("value_error", "assertion_error") and isinstance(error["input"], Mapping):
        return None
    return bounded_repr(error["input"])


def _wrong(error: ErrorDetails) -> str:
    kind, msg = error["type"], error["msg"]
    if kind in ("value_error", "assertion_error"):
        return re.sub(r"^(Value error|Assertion failed), ", "", msg)
    named = {
        "extra_forbidden": "not a field",
        "missing": "missing",
        "finite_number": "not a finite number",
        "literal_error": "not one of the choices",
        "enum": "not one of the choices",
        "too_short": "too short",
        "too_long": "too long",
    }
    if kind in named:
        return named[kind]
    if _is_type_error(kind):
        return "wrong type"
    if kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        return "out of range"
    return msg[:1].lower() + msg[1:]


def _is_type_error(kind: str) -> bool:
    named = ("int_from_float", "none_required")
    return kind.endswith("_type") or "_parsing" in kind or kind in named


def _allowed(error: ErrorDetails, walk: _Walk) -> str:
    """What the field accepts, from its declaration where the model is known."""
    kind, ctx = error["type"], error.get("ctx", {})
    if _is_extra(error):
        return "fields are " + _names(list(walk.holder.model_fields)) if walk.holder else ""
    if kind in ("literal_error", "enum"):
        return f"allowed: {ctx.get('expected', '')}"
    if kind in ("too_short", "too_long"):
        bound = ctx.get("min_length") if kind == "too_short" else ctx.get("max_length")
        most = "at least" if kind == "too_short" else "at most"
        return f"needs {most} {bound} item{'s' if bound != 1 else ''}"
    if kind.startswith(("greater_than", "less_than")):
        return "allowed: " + _range(walk, ctx, str(error["loc"][-1]) if error["loc"] else "value")
    if kind == "finite_number":
        return "expected a finite number"
    if kind == "missing" or _is_type_error(kind):
        expected = describe_type(walk.annotation) if walk.annotation is not None else None
        if expected is None:
            expected = re.sub(r"^Input should be ", "", error["msg"]).split(",")[0]
        return ("required: " if kind == "missing" else "expected ") + expected
    return ""


def _range(walk: _Walk, ctx: Mapping[str, Any], name: str) -> str:
    bounds = {k: ctx[k] for k in _BOUNDS if k in ctx}
    for meta in walk.field.metadata if walk.field else ():
        for key in _BOUNDS:
            if hasattr(meta, key):
                bounds.setdefault(key, getattr(meta, key))
    low = [_BOUNDS[k].format(_number(bounds[k])) for k in ("gt", "ge") if k in bounds]
    high = [_BOUNDS[k].format(_number(bounds[k])) for k in ("lt", "le") if k in bounds]
    return " ".join([*low[:1], name, *high[:1]])


def _number(value: Any) -> str:
    """A bound as written by hand: 1 rather than 1.0, 1e-06 rather than 0.000001."""
    return f"{value:g}" if isinstance(value, float) else str(value)


def _names(names: Sequence[str]) -> str:
    shown = ", ".join(names[:MAX_NAMES])
    return shown + (f" (and {len(names) - MAX_NAMES} more)" if len(names) > MAX_NAMES else "")


_PLAIN = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}
_PLURAL = {bool: "booleans", int: "integers", float: "numbers", str: "strings"}


def describe_type(tp: Any) -> str:
    """A field's type in the words of someone writing YAML: 'an integer', 'a list of strings'."""
    tp = _strip(tp)
    origin, args = get_origin(tp), get_args(tp)
    if tp in _PLAIN:
        return _PLAIN[tp]
    if tp is Any:
        return "any value"
    if tp is type(None):
        return "null"
    if origin is Literal:
        return "one of " + _names([repr(a) for a in args])
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return "one of " + _names([repr(m.value) for m in tp])
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return "a mapping of " + _names(list(tp.model_fields))
    if origin in (dict, Mapping) or tp is dict:
        return "a mapping"
    if origin in (list, tuple, set, frozenset, Sequence):
        inner = _strip(args[0]) if args else None
        return f"a list of {_PLURAL[inner]}" if inner in _PLURAL else "a list"
    if _is_union(tp):
        return " or ".join(describe_type(m) for m in args)
    return str(getattr(tp, "__name__", tp))
