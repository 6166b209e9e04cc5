"""Backends by name, through one entry-point group for built-ins and plug-ins alike.

Every backend -- ``cpu``, ``verl`` and anybody's -- is an entry point in the group
``harness.backends`` whose value is a `BackendSpec`. The built-ins are declared in this
project's pyproject.toml exactly as a plug-in package declares its own, so adding a backend is
its own folder and one entry-point line. Entry points are loaded only when named (a spec is
light; its `build` imports the heavy packages), and an unknown name is answered with the
closest known ones, as designers are.
"""

from __future__ import annotations

from importlib.metadata import EntryPoint

from envdesign_common.registry import EntryPointRegistry
from harness.backends.base import BackendUnavailable
from harness.backends.spec import BackendSpec

__all__ = [
    "BACKENDS",
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


def _spec(name: str, ep: EntryPoint, loaded: object) -> BackendSpec:
    if not isinstance(loaded, BackendSpec):
        raise TypeError(f"is a {type(loaded).__name__}, not a BackendSpec")
    if loaded.name != name:
        raise ValueError(f"calls itself {loaded.name!r}: give the entry point the spec's name")
    return loaded


BACKENDS = EntryPointRegistry(
    GROUP, "backend", _spec, unknown=UnknownBackend, broken=BackendLoadError
)


def refresh() -> None:
    """Forget the cached entry points and specs (after installing a plug-in in this process)."""
    BACKENDS.refresh()


def backend_names() -> list[str]:
    return BACKENDS.names()


def unknown_backend_line(name: str) -> str:
    """`name` is no backend: the names there are, and the closest."""
    return BACKENDS.unknown_line(name)


def backend_spec(name: str) -> BackendSpec:
    """The spec of backend `name`, loaded now; `UnknownBackend` with a did-you-mean."""
    return BACKENDS.load(name)


def describe_backends() -> dict[str, str]:
    """Name -> one-line description of every registered backend (loads each spec)."""
    return BACKENDS.describe(lambda spec: spec.description)
