"""What a conformance check reports: every broken rule of a plug-in at once, each with its fix.

`check_designer` and `check_task` hold a plug-in to the contract the harness relies on, as
Gymnasium's checker holds an environment. Both collect every problem before raising, so a
plug-in author fixes them in one pass rather than one re-run per bug; both raise the same kind
of error, one line per problem saying what was seen and how to fix it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

__all__ = ["ConformanceError", "ConformanceProblem", "collect_problems"]


@dataclass(frozen=True)
class ConformanceProblem:
    """One broken rule: the check's name, the context it showed on, what was seen, the fix."""

    check: str
    seen: str
    fix: str
    context: str = ""

    def __str__(self) -> str:
        where = f" ({self.context})" if self.context else ""
        return f"{self.check}{where}: {self.seen}; {self.fix}"


def collect_problems(
    found: dict[tuple[str, str], ConformanceProblem],
    problems: Iterable[ConformanceProblem],
    where: str,
) -> None:
    """Keep each problem once (same check, same fix), at the first context that showed it."""
    for problem in problems:
        found.setdefault((problem.check, problem.fix), replace(problem, context=where))


class ConformanceError(ValueError):
    """A plug-in breaks its kind's contract; `problems` holds one entry per broken rule.

    A ValueError, as the project's other errors for bad input are: the plug-in is a bad
    argument to its check. Not an AssertionError, so that a plug-in which breaks a rule stays
    distinct from one whose own ``assert`` failed inside it.
    """

    kind = "plug-in"

    def __init__(self, name: str, problems: Sequence[ConformanceProblem]) -> None:
        self.name = name
        self.problems = tuple(problems)
        count = len(self.problems)
        lines = "".join(f"\n  {problem}" for problem in self.problems)
        super().__init__(
            f"{self.kind} {name!r} has {count} conformance problem{'s' * (count != 1)}:{lines}"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.name, self.problems))

    @property
    def checks(self) -> tuple[str, ...]:
        """The names of the failed checks, in the order they were found."""
        return tuple(problem.check for problem in self.problems)
