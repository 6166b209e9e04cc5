"""One fact about the machine and what to do about it: the unit every doctor check returns.

A check says ``ok`` (what was found, so a user sees what the run will use), ``warn`` (the run
can start but something is slower, estimated or likely to hurt later) or ``fail`` (the run
would not get through its first round). A failing or warning finding carries its fix, so each
line on its own tells the user what to do.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

__all__ = ["Finding", "Level", "fail", "failed", "ok", "warn"]

Level = Literal["ok", "warn", "fail"]


@dataclass(frozen=True, slots=True)
class Finding:
    """One line of the doctor's report."""

    level: Level
    topic: str
    """What was checked (gpus, cuda, packages, disk, model, ray, ports, designers)."""
    what: str
    fix: str = ""

    def line(self) -> str:
        """The report's line: level, topic, what was found and the fix."""
        fix = f"; fix: {self.fix}" if self.fix else ""
        return f"{self.level.upper():<4}  {self.topic}: {self.what}{fix}"

    def problem(self) -> str:
        """The line as a preflight problem (no level: every problem there fails)."""
        fix = f"; fix: {self.fix}" if self.fix else ""
        return f"{self.topic}: {self.what}{fix}"


def ok(topic: str, what: str) -> Finding:
    return Finding("ok", topic, what)


def warn(topic: str, what: str, fix: str = "") -> Finding:
    return Finding("warn", topic, what, fix)


def fail(topic: str, what: str, fix: str = "") -> Finding:
    return Finding("fail", topic, what, fix)


def failed(findings: Iterable[Finding]) -> bool:
    """Whether any finding fails (warnings do not)."""
    return any(f.level == "fail" for f in findings)
