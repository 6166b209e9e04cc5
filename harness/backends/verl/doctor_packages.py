"""The packages of the python that runs verl and vLLM against the supported version sets.

Which set applies is decided by the installed verl (`versions.line_of`), exactly as the backend
picks its overrides; every other package of that set is compared with its pin. A missing verl
(where training runs here), vLLM, torch or transformers stops the first round; other
differences are warnings naming the extra that installs the tested set.
"""

from __future__ import annotations

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from harness.backends.verl.versions import (
    PAPER,
    SUPPORTED,
    UnsupportedVerl,
    VersionSet,
    line_of,
    version_set,
)
from harness.doctor.findings import Finding, fail, ok, warn
from harness.doctor.probes import PythonFacts

__all__ = ["DISTRIBUTIONS", "attention_findings", "package_findings"]

DISTRIBUTIONS: tuple[str, ...] = tuple(
    dict.fromkeys([*(name for s in SUPPORTED for name in s.packages), "flash-attn", "ray"])
)
"""What the trainer's python is asked for: every package of the supported sets, flash-attn, ray."""
ESSENTIAL = ("vllm", "torch", "transformers")
"""Without these the first round cannot start (evaluation and serving need vLLM too)."""


def _extra(s: VersionSet) -> str:
    return f'pip install -e ".[{s.extra}]"'


def _choices() -> str:
    return " or ".join(f"{_extra(s)} (verl {s.verl})" for s in SUPPORTED)


def _differs(installed: str | None, spec: str) -> bool:
    if installed is None:
        return True
    try:
        return Version(installed) not in SpecifierSet(spec)
    except (InvalidVersion, InvalidSpecifier):
        return True


def package_findings(facts: PythonFacts, *, verl_here: bool, ray_here: bool) -> list[Finding]:
    """`verl_here`: the trainer runs on this machine (not submitted to a Ray cluster);
    `ray_here`: Ray's job CLI runs here (training is submitted)."""
    python, have = facts.python, facts.packages
    if facts.error:
        return [
            fail(
                "packages",
                f"cannot ask {python} for its packages: {facts.error}",
                "point the runtime's commands.python at a working interpreter",
            )
        ]
    out: list[Finding] = []
    if ray_here and have.get("ray") is None:
        out.append(
            fail(
                "packages",
                f"ray is not installed for {python}; training is submitted as Ray jobs from here",
                'pip install "ray[default]"',
            )
        )
    verl = have.get("verl")
    if verl is None:
        if verl_here:
            return [*out, fail("packages", f"verl is not installed for {python}", _choices())]
        chosen, head = PAPER, "verl runs on the Ray cluster (not installed here)"
    else:
        try:
            chosen = version_set(line_of(verl))
        except UnsupportedVerl as err:
            return [*out, fail("packages", str(err), _choices())]
        head = f"verl {verl}"
    pins = {k: v for k, v in chosen.packages.items() if k != "verl"}
    wrong = {name: spec for name, spec in pins.items() if _differs(have.get(name), spec)}
    if not wrong:
        found = ", ".join(f"{n} {have.get(n)}" for n in pins)
        return [
            *out,
            ok(
                "packages",
                f"{head} with {found} in {python}: the tested set of verl "
                f"{chosen.verl} (the {chosen.extra} extra)",
            ),
        ]
    lines = [f"{n} {have.get(n) or 'missing'} (tested: {spec})" for n, spec in wrong.items()]
    what = f"{head} in {python}, but {', '.join(lines)}"
    if any(name in wrong and have.get(name) is None for name in ESSENTIAL):
        return [*out, fail("packages", what, _extra(chosen))]
    return [
        *out,
        warn("packages", f"{what}: not the set verl {chosen.verl} was tested with", _extra(chosen)),
    ]


def attention_findings(
    attention: str,
    facts: PythonFacts,
    flash: tuple[bool | None, str] | None,
    *,
    cluster: bool = False,
) -> list[Finding]:
    """flash-attn for ``verl.attention``: `flash` is the probe's (usable, reason), None when it
    was not asked (flash-attn not installed, or no GPU here); with `cluster` training runs on
    a Ray cluster, whose flash-attn cannot be probed from here."""
    verl = facts.packages.get("verl")
    try:
        pin = version_set(line_of(verl)).flash_attn if verl else PAPER.flash_attn
    except UnsupportedVerl:
        pin = PAPER.flash_attn
    fix = f"pip install flash-attn=={pin} --no-build-isolation" if pin else ""
    if attention == "sdpa":
        return [ok("attention", "sdpa as configured (flash-attn not needed)")]
    if cluster:
        return [
            warn(
                "attention",
                f"{attention}: training runs on the Ray cluster, whose flash-attn is not "
                "probed from here; auto attention runs sdpa without padding removal there "
                "unless verl.attention asks for flash_attention_2",
                f"{fix} on the cluster's nodes and set verl.attention: flash_attention_2",
            )
        ]
    installed = facts.packages.get("flash-attn")
    usable, reason = flash if flash is not None else (None, "")
    if installed is None:
        usable, reason = False, "flash-attn is not installed"
    if usable:
        return [ok("attention", f"flash_attention_2: {reason}")]
    if usable is None:
        return [
            warn(
                "attention",
                f"flash-attn {installed} not checked ({reason or 'no probe'}); "
                "verl falls back to sdpa without padding removal where it does not work",
                fix,
            )
        ]
    if attention == "flash_attention_2":
        return [
            fail(
                "attention",
                f"verl.attention is flash_attention_2 but {reason}",
                f"{fix}, or set verl.attention: sdpa",
            )
        ]
    return [warn("attention", f"{reason}: verl uses sdpa without padding removal (slower)", fix)]
