"""Backends by name, through one entry-point group for built-ins and plug-ins alike.

Every backend -- ``cpu``, ``verl`` and anybody's -- is an entry point in the group
``harness.backends`` whose value is a `BackendSpec`. The built-ins are declared in this
project's pyproject.toml exactly as a plug-in package declares its own, so adding a backend is
its own folder and one entry-point line. Entry points are loaded only when named (a spec is
light; its `build` imports the heavy packages), and an unknown name is answered with the
closest known ones, as designers are.
"""

from __future__ import annotations

import difflib
from functools import cache
from importlib.metadata import EntryPoint, entry_points

from harness.backends.base import BackendUnavailable
from harness.backends.spec import BackendSpec

__all__ = [
    "GROUP",
    "BackendLoadError",
    "UnknownBackend",
    "backend_names",
    "backend_spec",
    "describe_backends",
    "refresh",
    "unknown_backend_line",
]

GROUP = "harness.backends"


class UnknownBackend(BackendUnavailable):
    """No backend of that name is registered."""


class BackendLoadError(BackendUnavailable):
    """An entry point exists but does not give a usable `BackendSpec`."""


@cache
def _entry_points() -> dict[str, EntryPoint]:
    found: dict[str, EntryPoint] = {}
    for ep in sorted(entry_points(group=GROUP), key=lambda e: (e.name, e.value)):
        found.setdefault(ep.name, ep)
    return found


def refresh() -> None:
    """Forget the cached entry points and specs (after installing a plug-in in this process)."""
    _entry_points.cache_clear()
    backend_spec.cache_clear()


def backend_names() -> list[str]:
    return sorted(_entry_points())


def unknown_backend_line(name: str) -> str:
    """`name` is no backend: the names there are, and the closest."""
    names = backend_names()
    close = difflib.get_close_matches(name, names, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"no backend {name!r}{hint} Available: {', '.join(names)}"


@cache
def backend_spec(name: str) -> BackendSpec:
    """The spec of backend `name`, loaded now; `UnknownBackend` with a did-you-mean."""
    eps = _entry_points()
    if name not in eps:
        raise UnknownBackend(unknown_backend_line(name))
    try:
        spec = eps[name].load()
    except Exception as err:  # a broken plug-in must name itself, not crash somewhere deep
        raise BackendLoadError(
            f"backend {name!r} ({eps[name].value}) failed to load: {err}"
        ) from err
    if not isinstance(spec, BackendSpec):
        raise BackendLoadError(
            f"backend {name!r} ({eps[name].value}) is a {type(spec).__name__}, not a BackendSpec"
        )
    if spec.name != name:
        raise BackendLoadError(
            f"backend {name!r} ({eps[name].value}) calls itself {spec.name!r}: give the entry "
            "point the spec's name"
        )
    return spec


def describe_backends() -> dict[str, str]:
    """Name -> one-line description of every registered backend (loads each spec)."""
    out: dict[str, str] = {}
    for name in backend_names():
        try:
            out[name] = backend_spec(name).description.splitlines()[0]
        except BackendUnavailable as err:
            out[name] = f"(broken: {err})"
    return out
