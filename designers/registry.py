"""Designers by name, through one entry-point group for built-ins and plug-ins alike.

Every designer -- ours and anybody's -- is an entry point in the group ``harness.designers``
whose value is a class or factory returning a `Designer`. Built-ins are declared in this
project's pyproject.toml exactly as a plug-in package declares its own, so the plug-in path is
the one every run takes. Entry points are loaded only when named; an unknown name is answered
with the closest known ones.

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


class UnknownDesigner(KeyError):
    """No designer of that name is registered."""

    def __str__(self) -> str:
        return str(self.args[0])


class DesignerLoadError(RuntimeError):
    """An entry point exists but does not give a usable designer."""


@cache
def _entry_points() -> dict[str, EntryPoint]:
    found: dict[str, EntryPoint] = {}
    for ep in sorted(entry_points(group=GROUP), key=lambda e: (e.name, e.value)):
        found.setdefault(ep.name, ep)
    return found


def refresh() -> None:
    """Forget the cached entry points (after installing a plug-in in this process)."""
    _entry_points.cache_clear()


def designer_names() -> list[str]:
    return sorted(_entry_points())


def _factory(name: str) -> Callable[..., Any]:
    eps = _entry_points()
    if name not in eps:
        close = difflib.get_close_matches(name, eps, n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise UnknownDesigner(
            f"no designer {name!r}{hint} Available: {', '.join(sorted(eps))} "
            "(and llm:<litellm model string>)"
        )
    try:
        target: Callable[..., Any] = eps[name].load()
    except Exception as err:  # a broken plug-in must name itself, not crash somewhere deep
        raise DesignerLoadError(
            f"designer {name!r} ({eps[name].value}) failed to load: {err}"
        ) from err
    if not callable(target):
        raise DesignerLoadError(f"designer {name!r} ({eps[name].value}) is not callable")
    return target


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
    """Name -> one-line description of every registered designer (loads each entry point)."""
    out: dict[str, str] = {}
    for name in designer_names():
        try:
            target = _factory(name)
            out[name] = str(getattr(target, "description", "") or (target.__doc__ or "").strip())
        except DesignerLoadError as err:
            out[name] = f"(broken: {err})"
        out[name] = out[name].splitlines()[0] if out[name] else ""
    return out
