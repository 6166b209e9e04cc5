"""The verl releases the backend drives, and the package set each one was released against.

Two lines are supported side by side:

* ``0.6`` -- verl 0.6.1 with vLLM 0.11.0 and torch 2.8.0, the paper's recipe (the ``gpu``
  extra). Training rollouts may run in-process (``rollout.mode=sync``).
* ``0.9`` -- verl 0.9.1 with the set its own ``vllm`` extra pins (vLLM 0.24.0, torch 2.11.0,
  transformers 5.9.0; the ``gpu-current`` extra), which is what a current cluster image holds.
  verl 0.7.0 removed the sync rollout, so this line always rolls out through vLLM servers.
  Its default (v1) trainer also imports what verl's ``verl-core`` extra brings (TransferQueue,
  cachetools, ...), which ``verl[vllm]`` includes and plain ``verl`` does not.

A `VersionSet` is the contract the rest of the harness reads: the overrides are built for the
line of the verl that will run, ``harness doctor`` compares what a machine has with each set,
and the extras in ``pyproject.toml`` install exactly these pins (a test holds them equal).
Nothing here imports verl: the installed version is read from package metadata. Nor does it
import the rest of the project: ``.ci/gpu-resolve`` loads this file alone, in a venv that holds
only pip's report, to compare the resolved extras with these sets.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

__all__ = [
    "CURRENT",
    "PAPER",
    "SUPPORTED",
    "UnsupportedVerl",
    "VerlLine",
    "VersionSet",
    "line_of",
    "version_set",
]

VerlLine = Literal["0.6", "0.9"]


class UnsupportedVerl(RuntimeError):
    """The installed (or requested) verl is not one of the supported lines."""


@dataclass(frozen=True, slots=True)
class VersionSet:
    """One supported verl line and the packages it needs, as PEP 440 specifiers."""

    line: VerlLine
    extra: str
    """The pip extra of this project that installs the set."""
    verl: str
    """The exact verl release the line was checked against."""
    packages: dict[str, str] = field(default_factory=dict)
    """Distribution name -> specifier (verl itself included)."""
    accepts: str = ""
    """The verl releases the line's overrides are valid for (a specifier)."""
    flash_attn: str = ""
    """The flash-attn release built for the line's torch (installed apart from the extra: it
    compiles against the installed torch, ``pip install flash-attn==<v> --no-build-isolation``)."""

    def admits(self, verl_version: str) -> bool:
        """Whether `verl_version` is one this line's overrides are built for."""
        try:
            return Version(verl_version) in SpecifierSet(self.accepts)
        except InvalidVersion:
            return False


PAPER = VersionSet(
    line="0.6",
    extra="gpu",
    verl="0.6.1",
    accepts=">=0.6.1,<0.7",
    flash_attn="2.8.3",
    packages={
        "verl": "==0.6.1",
        "vllm": "==0.11.0",
        "torch": "==2.8.0",
        "transformers": ">=4.56,<5",
        "numpy": "<2",
        "pyarrow": "<26",
    },
)
CURRENT = VersionSet(
    line="0.9",
    extra="gpu-current",
    verl="0.9.1",
    accepts=">=0.9.0,<0.10",
    flash_attn="2.8.3",
    packages={
        "verl": "==0.9.1",
        "vllm": "==0.24.0",
        "torch": "==2.11.0",
        "transformers": "==5.9.0",
        "numpy": ">=2",
    },
)
SUPPORTED: tuple[VersionSet, ...] = (PAPER, CURRENT)


def version_set(line: VerlLine) -> VersionSet:
    """The supported set of `line`."""
    return next(s for s in SUPPORTED if s.line == line)


def line_of(verl_version: str) -> VerlLine:
    """The supported line `verl_version` belongs to; `UnsupportedVerl` names the choices."""
    for supported in SUPPORTED:
        if supported.admits(verl_version):
            return supported.line
    choices = ", ".join(f"{s.verl} ({s.extra} extra)" for s in SUPPORTED)
    raise UnsupportedVerl(
        f"verl {verl_version} is not supported; the backend drives verl {choices}: "
        f"install one of them"
    )
