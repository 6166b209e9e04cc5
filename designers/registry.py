"""Designers by name, through one entry-point group for built-ins and plug-ins alike.

Every designer -- ours and anybody's -- is an entry point in the group ``harness.designers``
whose value is a class or factory returning a `Designer`. Built-ins are declared in this
project's pyproject.toml exactly as a plug-in package declares its own, so the plug-in path is
the one every run takes. Entry points are loaded only when named; an unknown name is answered
with the closest known ones.

Designers whose names live in a table rather than in code (the LLM designers' model aliases,
``designers/llm/models.yaml``) come from a family: an entry point in the group
``harness.designer_families`` whose value, called, gives name -> factory for every member. A
family is asked only when names are listed or a name is not a plain entry point, and asked
afresh each time, so a row added to its table is a designer at once; a plain entry point of the
same name wins over a member.

A name may carry an argument after a colon (``llm:openai/gpt-4o``); the factory receives it as
``arg``. An entry may end in a context variant (``gpt@V3``, ``gpt@V6+details``; see
`designers.entries`), which becomes the designer's variant options.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from pydantic import BaseModel

from designers.base import Designer
from designers.entries import DesignerEntry, parse_entry
from designers.options import (
    DesignerOptionsError,
    declared_options,
    option_problems,
    validated_options,
)

GROUP = "harness.designers"
FAMILY_GROUP = "harness.designer_families"


class UnknownDesigner(KeyError):
    """No designer of that name is registered."""

    def __str__(self) -> str:
        return str(self.args[0])


class DesignerLoadError(RuntimeError):
    """An entry point exists but does not give a usable designer."""


@cache
def _entry_points(group: str = GROUP) -> dict[str, EntryPoint]:
    found: dict[str, EntryPoint] = {}
    for ep in sorted(entry_points(group=group), key=lambda e: (e.name, e.value)):
        found.setdefault(ep.name, ep)
    return found


def _members(family: str, ep: EntryPoint) -> Mapping[str, Callable[..., Any]]:
    """What one family lists now; `DesignerLoadError` naming it when it cannot say."""
    try:
        members = ep.load()()
    except Exception as err:  # a broken family (or its table) must name itself
        raise DesignerLoadError(
            f"designer family {family!r} ({ep.value}) failed to list its designers: {err}"
        ) from err
    if not isinstance(members, Mapping):
        raise DesignerLoadError(
            f"designer family {family!r} ({ep.value}) gave a {type(members).__name__}, not a "
            "mapping of name -> factory"
        )
    return members


def _family_members() -> dict[str, Callable[..., Any]]:
    """Every family's members that no plain entry point shadows, by name."""
    plain = _entry_points()
    found: dict[str, Callable[..., Any]] = {}
    for family, ep in _entry_points(FAMILY_GROUP).items():
        for name, factory in _members(family, ep).items():
            if name not in plain:
                found.setdefault(name, factory)
    return found


def refresh() -> None:
    """Forget the cached entry points (after installing a plug-in in this process)."""
    _entry_points.cache_clear()


def designer_names() -> list[str]:
    """Every designer's name: plain entry points and the families' members."""
    return sorted({*_entry_points(), *_family_members()})


def _factory(name: str) -> Callable[..., Any]:
    eps = _entry_points()
    if name not in eps:
        return _member(name)
    try:
        target: Callable[..., Any] = eps[name].load()
    except Exception as err:  # a broken plug-in must name itself, not crash somewhere deep
        raise DesignerLoadError(
            f"designer {name!r} ({eps[name].value}) failed to load: {err}"
        ) from err
    if not callable(target):
        raise DesignerLoadError(f"designer {name!r} ({eps[name].value}) is not callable")
    return target


def _member(name: str) -> Callable[..., Any]:
    """A family member's factory; `UnknownDesigner`, with close names, when none is `name`."""
    members = _family_members()
    if name not in members:
        known = sorted({*_entry_points(), *members})
        close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise UnknownDesigner(
            f"no designer {name!r}{hint} Available: {', '.join(known)} "
            "(and llm:<litellm model string>)"
        )
    if not callable(members[name]):
        raise DesignerLoadError(f"designer {name!r} (a family member) is not callable")
    return members[name]


def create_designer(spec: str, **options: Any) -> Designer:
    """The designer named by `spec` (``name``, ``name:arg``, either with ``@<variant>``), built
    with `options`.

    The options are checked against the designer's declared options model first
    (`DesignerOptionsError`, one line per bad field); a variant suffix sets the variant
    options, and refuses options that contradict it and designers that read no variant.
    """
    entry = parse_entry(spec)
    name, sep, arg = entry.spec.partition(":")
    factory = _factory(name.strip())
    options = {**options, **_suffix_options(entry, factory, options)}
    kwargs = validated_options(_options_model(spec, factory), options, spec=spec)
    designer = factory(arg=arg, **kwargs) if sep else factory(**kwargs)
    if not isinstance(designer, Designer):
        raise DesignerLoadError(
            f"designer {spec!r} gave a {type(designer).__name__}, which lacks name, description "
            "or propose()"
        )
    return designer


def designer_option_problems(spec: str, options: Mapping[str, Any]) -> list[str]:
    """One line per option of `spec` its options model refuses; raises `UnknownDesigner`."""
    factory = _factory(parse_entry(spec).spec.partition(":")[0].strip())
    return option_problems(_options_model(spec, factory), options, spec=spec)


def _options_model(spec: str, factory: Callable[..., Any]) -> type[BaseModel]:
    try:
        return declared_options(factory)
    except TypeError as err:
        raise DesignerLoadError(f"designer {spec!r}: {err}") from None


def takes_context_variant(spec: str) -> bool:
    """Whether the designer reads a context variant (V1..V6): its factory says so with a
    ``takes_context_variant = True`` attribute, so the harness never needs to know names."""
    factory = _factory(parse_entry(spec).spec.partition(":")[0].strip())
    return bool(getattr(factory, "takes_context_variant", False))


def _suffix_options(
    entry: DesignerEntry, factory: Callable[..., Any], options: Mapping[str, Any]
) -> dict[str, Any]:
    """The options `entry`'s variant suffix sets; `DesignerOptionsError` when the designer
    reads no variant or `options` say otherwise."""
    if entry.variant is None:
        return {}
    if not getattr(factory, "takes_context_variant", False):
        raise DesignerOptionsError([entry.no_variant_read()])
    clash = entry.conflicts(dict(options))
    if clash:
        raise DesignerOptionsError([
            f"designer_options.{entry.entry}.{key}: {options[key]!r} contradicts the entry's "
            f"suffix {entry.suffix!r}; drop the option (the suffix names the variant)"
            for key in clash
        ])  # fmt: skip
    return entry.options()


def describe_designers() -> dict[str, str]:
    """Name -> one-line description of every registered designer (loads each entry point); a
    family that cannot list its members shows as one broken row under its own name."""
    out: dict[str, str] = {}
    for name in _entry_points():
        try:
            out[name] = _description(_factory(name))
        except DesignerLoadError as err:
            out[name] = f"(broken: {err})"
    for family, ep in _entry_points(FAMILY_GROUP).items():
        try:
            members = _members(family, ep)
        except DesignerLoadError as err:
            out.setdefault(family, f"(broken: {err})")
            continue
        for name, factory in members.items():
            out.setdefault(name, _description(factory))
    return {name: text.splitlines()[0] if text else "" for name, text in sorted(out.items())}


def _description(target: Any) -> str:
    return str(getattr(target, "description", "") or (target.__doc__ or "").strip())
