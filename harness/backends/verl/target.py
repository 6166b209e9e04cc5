"""Which verl the round's overrides are built for, and which attention its models load with.

Two things about the machine that trains change the command, and neither is part of the
experiment: the installed verl's line (`versions`: 0.6 and 0.9 name some keys differently) and
whether flash-attn works there. verl loads the actor and the reference model with
``attn_implementation=flash_attention_2`` unless told otherwise, and with
``use_remove_padding=true`` it imports ``flash_attn.bert_padding``; without a working flash-attn
(not installed, built for another torch, or a GPU older than compute capability 8.0, which
flash-attn 2 requires) the first model load fails. `resolve_target` decides both once per
backend and says how in `VerlTarget.why`, which the dry run prints and the run record keeps.

* The verl version: `VerlRuntime.verl_version` when set (a dry run of a cluster, a Ray
  cluster whose packages cannot be seen from here, the tests' stand-ins); otherwise the
  version installed for `VerlCommands.python` -- package metadata for this interpreter, a short
  ``python -c`` probe printing JSON for another. verl itself is never imported.
* flash-attn: `VerlRuntime.flash_attn` when set, else probed in a subprocess of that python
  (``import flash_attn`` and every visible GPU's compute capability), so the harness process
  never initialises CUDA, which would hold memory on a GPU verl then needs.
* ``attention: auto`` uses flash_attention_2 where flash-attn is usable and otherwise sdpa
  without padding removal, saying so; ``flash_attention_2`` where flash-attn is not usable is
  an error naming the fix, never a silent fallback; ``sdpa`` probes nothing.
* With ``probe=False`` (the dry run, typically on a machine without the GPUs) nothing is probed:
  an unset version is read from this interpreter's metadata or else assumed to be the paper's,
  and ``auto`` attention is shown as flash_attention_2; such a target is `provisional` and its
  `why` says what the launch decides.
* With a Ray address the trainer runs on the cluster, whose GPUs cannot be probed from here:
  ``auto`` resolves to sdpa (it runs on every GPU) unless `VerlRuntime.flash_attn` says true.
* The rollout mode: the settings' on the 0.6 line; on the 0.9 line, which has only server
  rollouts, ``sync`` becomes ``async`` and `why` says so (`harness.backends.verl.overrides`
  explains why this is mapped rather than refused).
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from typing import Literal

from harness.backends.base import BackendUnavailable
from harness.backends.flash_attention import FLASH_CHECK
from harness.backends.verl.runtime import VerlRuntime
from harness.backends.verl.settings import VerlSettings
from harness.backends.verl.versions import (
    PAPER,
    UnsupportedVerl,
    VerlLine,
    line_of,
    version_set,
)
from harness.doctor.probes import installed_version

__all__ = [
    "PROBE_SCRIPT",
    "Attention",
    "AttentionUnavailable",
    "Probe",
    "RolloutMode",
    "VerlTarget",
    "default_target",
    "probe_python",
    "resolve_target",
]

Attention = Literal["flash_attention_2", "sdpa"]
RolloutMode = Literal["sync", "async"]
PROBE_TIMEOUT_S = 300.0
"""Importing torch and flash-attn on a cold cluster filesystem can take minutes."""


class AttentionUnavailable(BackendUnavailable):
    """``attention: flash_attention_2`` where flash-attn cannot run."""


@dataclass(frozen=True, slots=True)
class VerlTarget:
    """The verl line and attention one run's trainer is launched with."""

    verl_version: str
    """e.g. "0.6.1": as detected, or as configured."""
    line: VerlLine
    attention: Attention
    remove_padding: bool
    """``model.use_remove_padding``; always False with sdpa (padding removal needs flash-attn)."""
    rollout_mode: RolloutMode
    """``rollout.mode``: the settings' on the 0.6 line, always async on the 0.9 line."""
    why: str
    """One line: how the line and the attention were chosen."""
    provisional: bool = False
    """Something was not probed (a dry run): the launch may choose otherwise, as `why` says."""

    def describe(self) -> str:
        """One line for the dry run and the logs."""
        padding = "with" if self.remove_padding else "without"
        text = f"verl {self.verl_version} ({self.line} line), {self.rollout_mode} rollout, "
        text += f"attention {self.attention} {padding} padding removal"
        return f"{text}{' (provisional)' if self.provisional else ''}: {self.why}"

    def as_record(self) -> dict[str, str | bool]:
        """JSON-safe fields for the run record."""
        return {
            "verl_version": self.verl_version,
            "line": self.line,
            "attention": self.attention,
            "remove_padding": self.remove_padding,
            "rollout_mode": self.rollout_mode,
            "provisional": self.provisional,
            "why": self.why,
        }


@dataclass(frozen=True, slots=True)
class Probe:
    """What a python reports about itself (`PROBE_SCRIPT`)."""

    verl: str | None
    flash_attn: bool | None = None
    """None: not asked."""
    flash_reason: str = ""


PROBE_SCRIPT = f"""\
import importlib.metadata as md, json, sys
out = {{"verl": None, "flash_attn": None, "flash_reason": ""}}
try:
    out["verl"] = md.version("verl")
except md.PackageNotFoundError:
    pass
{FLASH_CHECK}if "flash" in sys.argv[1:]:
    out["flash_attn"], out["flash_reason"] = flash()
print(json.dumps(out))
"""
"""Run as ``<python> -c PROBE_SCRIPT [flash]``; prints one JSON line (never imports verl)."""


def probe_python(python: str, *, flash: bool) -> Probe:
    """Ask `python` for its verl version and, with `flash`, whether flash-attn is usable."""
    argv = [python, "-c", PROBE_SCRIPT, *(["flash"] if flash else [])]
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        raise BackendUnavailable(f"cannot run the trainer's python {python}: {err}") from None
    lines = done.stdout.strip().splitlines()
    try:
        data = json.loads(lines[-1]) if done.returncode == 0 and lines else None
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict):
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise BackendUnavailable(
            f"probing the trainer's python {python} failed (exit {done.returncode}): {tail}"
        )
    verl, usable = data.get("verl"), data.get("flash_attn")
    return Probe(
        verl=verl if isinstance(verl, str) else None,
        flash_attn=usable if isinstance(usable, bool) else None,
        flash_reason=str(data.get("flash_reason", "")),
    )


def default_target(settings: VerlSettings) -> VerlTarget:
    """The paper's line with the attention the settings ask for, unprobed (`provisional` for
    ``auto``): what `build_overrides` assumes when it is given no target."""
    known = _Known(PAPER.verl, PAPER.line, "assumed (the paper's)", None, "not probed", False, True)
    return _attention(settings, known)


def resolve_target(
    settings: VerlSettings, runtime: VerlRuntime, *, probe: bool = True
) -> VerlTarget:
    """The run's target (see the module docstring); `UnsupportedVerl` for a verl outside the
    supported lines, `AttentionUnavailable` for flash_attention_2 without a usable flash-attn."""
    python = runtime.commands.python
    here = python == sys.executable
    cluster = runtime.submits_jobs
    probe_flash = (
        probe and not cluster and settings.attention != "sdpa" and runtime.flash_attn is None
    )
    version, source = runtime.verl_version, "as configured"
    if version is None and here:
        version, source = installed_version("verl"), f"installed for {python}"
    found: Probe | None = None
    if probe_flash or (version is None and probe and not here):
        found = probe_python(python, flash=probe_flash)
        if version is None:
            version, source = found.verl, f"installed for {python}"
    provisional = version is None and not probe
    if version is None:
        if probe:
            raise UnsupportedVerl(
                f'verl is not installed for {python}: pip install -e ".[{PAPER.extra}]" (or '
                f"[{version_set('0.9').extra}]) there"
            )
        version, source = PAPER.verl, "assumed (the paper's; not installed here)"
    flash, reason = _flash(runtime, found if probe_flash else None)
    known = _Known(version, line_of(version), source, flash, reason, cluster, provisional)
    return _attention(settings, known)


def _flash(runtime: VerlRuntime, found: Probe | None) -> tuple[bool | None, str]:
    """Whether flash-attn is usable where the trainer runs (None: unknown), and how it is known."""
    if runtime.flash_attn is not None:
        return runtime.flash_attn, f"flash_attn: {str(runtime.flash_attn).lower()} configured"
    if found is not None and found.flash_attn is not None:
        return found.flash_attn, found.flash_reason
    if runtime.submits_jobs:
        return None, (
            "the Ray cluster's GPUs are not probed from here; set verl.attention: "
            "flash_attention_2 when its nodes have flash-attn"
        )
    return None, "flash-attn is probed on the GPU machine at launch"


@dataclass(frozen=True, slots=True)
class _Known:
    """What `resolve_target` found before applying the settings' attention."""

    version: str
    line: VerlLine
    source: str
    flash: bool | None
    """None: unknown (not probed)."""
    reason: str
    cluster: bool
    provisional: bool


def _attention(settings: VerlSettings, k: _Known) -> VerlTarget:
    """Apply `settings.attention` to what is known about flash-attn, and the line's rollout."""
    head = f"verl {k.version} {k.source}"
    attention, padding, how, unsure = _choose(settings, k)
    rollout: RolloutMode = settings.rollout_mode
    if k.line != "0.6" and rollout == "sync":
        rollout = "async"
        how += "; rollout async (verl >= 0.7 has no sync rollout; the settings' sync is mapped)"
    return VerlTarget(
        verl_version=k.version,
        line=k.line,
        attention=attention,
        remove_padding=padding,
        rollout_mode=rollout,
        why=f"{head}; {how}",
        provisional=k.provisional or unsure,
    )


def _choose(settings: VerlSettings, k: _Known) -> tuple[Attention, bool, str, bool]:
    """(attention, padding removal, how it was chosen, whether the launch may differ)."""
    padding = settings.use_remove_padding
    if settings.attention == "sdpa":
        return (
            "sdpa",
            False,
            "attention sdpa as configured (padding removal needs flash-attn: off)",
            False,
        )
    if settings.attention == "flash_attention_2":
        if k.flash is False:
            pin = version_set(k.line).flash_attn
            raise AttentionUnavailable(
                f"verl.attention is flash_attention_2 but flash-attn is not usable ({k.reason}): "
                f"pip install flash-attn=={pin} --no-build-isolation, or set verl.attention: sdpa"
            )
        note = "usable" if k.flash else f"not checked: {k.reason}"
        how = f"attention flash_attention_2 as configured (flash-attn {note})"
        return "flash_attention_2", padding, how, k.flash is None and not k.cluster
    if k.flash:
        return (
            "flash_attention_2",
            padding,
            f"auto attention: flash_attention_2 ({k.reason})",
            False,
        )
    if k.flash is False or k.cluster:
        return "sdpa", False, f"auto attention: sdpa without padding removal ({k.reason})", False
    how = "auto attention: flash_attention_2 if flash-attn is usable at launch, else sdpa "
    return "flash_attention_2", padding, how + "without padding removal", True
