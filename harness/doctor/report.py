"""The doctor's report: one line per finding, a verdict, and the exit code."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from harness.doctor.findings import Finding, failed

__all__ = ["exit_code", "report_lines", "verdict"]


def report_lines(findings: Sequence[Finding]) -> list[str]:
    return [f.line() for f in findings]


def verdict(findings: Sequence[Finding], name: str) -> str:
    """The last line: the counts, and whether `name` can run here."""
    n = Counter(f.level for f in findings)
    counts = f"{n['ok']} ok, {n['warn']} warning(s), {n['fail']} failure(s)"
    if failed(findings):
        return f"{counts}: {name!r} cannot run here until the failures are fixed"
    if n["warn"]:
        return f"{counts}: {name!r} can run here; read the warnings"
    return f"{counts}: {name!r} can run here"


def exit_code(findings: Sequence[Finding]) -> int:
    """0 when nothing fails (warnings allowed), 1 otherwise."""
    return 1 if failed(findings) else 0
