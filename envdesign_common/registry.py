"""Plug-ins by name, one entry-point group per kind: the registry every plug-in kind shares.

Designers, backends and tasks are each an entry-point group; the project's own built-ins are
declared in its pyproject.toml exactly as an outside package declares its plug-ins, so the
plug-in path is the one every run takes. Entry points are loaded only when named (importing a
plug-in may import heavy SDKs), each loaded object is checked once by the kind's own rule (a
`BackendSpec`, a `Task`, a callable), and an unknown name is answered with the closest known
ones. A kind differs from another only in its group, its word for itself, its check and its
exceptions, so those are all a registry is given.
"""

from __future__ import annotations

import difflib
import weakref
from collections.abc import Callable, Iterable
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Generic, TypeVar

__all__ = ["EntryPointRegistry", "PluginLoadError", "UnknownPlugin", "close_names"]

T = TypeVar("T")
_REGISTRIES: weakref.WeakSet[EntryPointRegistry[Any]] = weakref.WeakSet()


class UnknownPlugin(KeyError):
    """No plug-in of that name is registered in the group."""

    def __str__(self) -> str:
        return str(self.args[0])


class PluginLoadError(RuntimeError):
    """An entry point exists but does not give a usable plug-in."""


@cache
def _group(group: str) -> dict[str, EntryPoint]:
    """Name -> entry point; of two entry points with one name, the first by value wins, so
    which one runs never depends on the order packages were installed in."""
    found: dict[str, EntryPoint] = {}
    for ep in sorted(entry_points(group=group), key=lambda e: (e.name, e.value)):
        found.setdefault(ep.name, ep)
    return found


def close_names(name: str, known: Iterable[str], n: int = 3) -> str:
    """``; did you mean a, b?`` for the known names closest to `name`, or nothing."""
    close = difflib.get_close_matches(name, sorted(known), n=n, cutoff=0.5)
    return f"; did you mean {', '.join(close)}?" if close else ""


class EntryPointRegistry(Generic[T]):
    """The plug-ins of one entry-point group.

    `check(name, entry_point, loaded)` returns the loaded object as the kind's type or raises
    (any exception; it is re-raised as `broken`, naming the entry point). `unknown` and `broken`
    are the kind's own exception types, so callers catch what they always caught.
    """

    def __init__(
        self,
        group: str,
        kind: str,
        check: Callable[[str, EntryPoint, object], T],
        *,
        unknown: type[Exception] = UnknownPlugin,
        broken: type[Exception] = PluginLoadError,
    ) -> None:
        self.group, self.kind = group, kind
        self._check, self._unknown, self._broken = check, unknown, broken
        self._loaded: dict[str, T] = {}
        _REGISTRIES.add(self)

    def entry_points(self) -> dict[str, EntryPoint]:
        return _group(self.group)

    def names(self) -> list[str]:
        return sorted(self.entry_points())

    def __contains__(self, name: object) -> bool:
        return name in self.entry_points()

    def refresh(self) -> None:
        """Forget what was found and loaded (after installing a plug-in in this process)."""
        _group.cache_clear()
        self._loaded.clear()

    @staticmethod
    def refresh_all() -> None:
        """Refresh every registry of every kind."""
        for registry in list(_REGISTRIES):
            registry.refresh()

    def unknown_line(self, name: str, known: Iterable[str] | None = None, tail: str = "") -> str:
        """`name` is no plug-in of this kind: the closest names and every name there is."""
        names = sorted(self.names() if known is None else known)
        return (
            f"no {self.kind} {name!r}{close_names(name, names)} Available: {', '.join(names)}"
            + (f" {tail}" if tail else "")
        )

    def load(self, name: str) -> T:
        """The plug-in `name`, loaded and checked once; `unknown` with close names, `broken`
        naming the entry point when it fails to import or to pass the kind's check."""
        if name in self._loaded:
            return self._loaded[name]
        eps = self.entry_points()
        if name not in eps:
            raise self._unknown(self.unknown_line(name))
        ep = eps[name]
        try:
            target = ep.load()
        except Exception as err:  # a broken plug-in must name itself, not crash somewhere deep
            raise self._broken(f"{self.kind} {name!r} ({ep.value}) failed to load: {err}") from err
        try:
            loaded = self._check(name, ep, target)
        except Exception as err:
            raise self._broken(f"{self.kind} {name!r} ({ep.value}) {err}") from None
        self._loaded[name] = loaded
        return loaded

    def describe(self, line: Callable[[T], str]) -> dict[str, str]:
        """Name -> first line of `line(plug-in)` for every plug-in (loads each); one that
        cannot load shows as ``(broken: ...)`` rather than hiding the others."""
        out: dict[str, str] = {}
        for name in self.names():
            try:
                text = line(self.load(name))
            except (self._unknown, self._broken) as err:
                text = f"(broken: {err})"
            out[name] = text.splitlines()[0] if text else ""
        return out
