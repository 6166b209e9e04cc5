"""Which benchmark instances are asked: whole suites, or a stratified subset for a quick look.

`--limit N` keeps N instances per suite (`tasks.stratified`, whose module says how they are
chosen).
A record made with a limit says so, and boards refuse to mix it with full ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.policy_eval.errors import PolicyEvalError
from tasks import Suite, Task, stratified


def load_suites(
    task: Task[Any, Any], names: Sequence[str], limit: int | None = None
) -> list[Suite[Any]]:
    """The task's named suites (each at most `limit` items), in the order given."""
    if not names:
        raise PolicyEvalError("--bench needs at least one suite, e.g. 3agents,4agents,5agents")
    if limit is not None and limit < 1:
        raise PolicyEvalError(f"--limit must be at least 1, got {limit}")
    known = task.suite_names
    unknown = [n for n in names if n not in known]
    if unknown:
        raise PolicyEvalError(
            f"unknown benchmark suite {unknown[0]!r}; available: {', '.join(known)}"
        )
    if len(set(names)) != len(names):
        raise PolicyEvalError(f"--bench names a suite twice: {', '.join(names)}")
    return [stratified(task.suite(name), task.cuts, limit) for name in names]
