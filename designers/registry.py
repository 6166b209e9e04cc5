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

from collections.abc import Callable, Mapping
from importlib.metadata import EntryPoint
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
from envdesign_common.registry import EntryPointRegistry

GROUP = "harness.designers"
FAMILY_GROUP = "harness.designer_families"
_ANY_MODEL = "(and llm:<litellm model string>)"


class UnknownDesigner(KeyError):
    """No designer of that name is registered."""

    def __str__(self) -> str:
        return str(self.args[0])


class DesignerLoadError(RuntimeError):
    """An entry point exists but does not give a usable designer."""


def _callable(name: str, ep: EntryPoint, loaded: object) -> Callable[..., Any]:
    if not callable(loaded):
        raise TypeError("is not callable")
    return loaded


DESIGNERS = EntryPointRegistry(
    GROUP, "designer", _callable, unknown=UnknownDesigner, broken=DesignerLoadError
)
FAMILIES = EntryPointRegistry(
    FAMILY_GROUP, "designer family", _callable, unknown=UnknownDesigner, broken=DesignerLoadError
)


def _members(family: str) -> Mapping[str, Callable[..., Any]]:
    """What one family lists now; `DesignerLoadError` naming it when it cannot say."""
    value = FAMILIES.entry_points()[family].value
    try:
        members = FAMILIES.load(family)()
    except DesignerLoadError:
        raise
    except Exception as err:  # a broken family (or its table) must name itself
        raise DesignerLoadError(
            f"designer family {family!r} ({value}) failed to list its designers: {err}"
        ) from err
    if not isinstance(members, Mapping):
        raise DesignerLoadError(
            f"designer family {family!r} ({value}) gave a {type(members).__name__}, not a "
            "mapping of name -> factory"
        )
    return members


def _family_members() -> dict[str, Callable[..., Any]]:
    """Every family's members that no plain entry point shadows, by name."""
    found: dict[str, Callable[..., Any]] = {}
    for family in FAMILIES.names():
        for name, factory in _members(family).items():
            if name not in DESIGNERS:
                found.setdefault(name, factory)
    return found


def refresh() -> None:
    """Forget the cached entry points (after installing a plug-in in this process)."""
    DESIGNERS.refresh()
    FAMILIES.refresh()


def designer_names() -> list[str]:
    """Every designer's name: plain entry points and the families' members."""
    return sorted({*DESIGNERS.names(), *_family_members()})


def _factory(name: str) -> Callable[..., Any]:
    if name in DESIGNERS:
        return DESIGNERS.load(name)
    members = _family_members()
    if name not in members:
        known = {*DESIGNERS.names(), *members}
        raise UnknownDesigner(DESIGNERS.unknown_line(name, known, tail=_ANY_MODEL))
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


def designer_options_model(name: str) -> type[BaseModel]:
    """The options model designer `name` declares (`NoOptions` when it takes none): what
    ``designer_options.<name>`` may set, for listings and the documentation's reference."""
    return _options_model(name, _factory(parse_entry(name).spec.partition(":")[0].strip()))


def designer_tasks(name: str) -> tuple[str, ...] | None:
    """The task families designer `name` serves, as its class or factory declares them (a
    ``tasks`` attribute); None: any task."""
    served = getattr(_factory(name), "tasks", None)
    return None if served is None else tuple(served)


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
    out = DESIGNERS.describe(_description)
    for family in FAMILIES.names():
        try:
            members = _members(family)
        except DesignerLoadError as err:
            out.setdefault(family, f"(broken: {err})")
            continue
        for name, factory in members.items():
            text = _description(factory)
            out.setdefault(name, text.splitlines()[0] if text else "")
    return dict(sorted(out.items()))


def _description(target: Any) -> str:
    return str(getattr(target, "description", "") or (target.__doc__ or "").strip())
