"""One design step as the round loop runs it: under a deadline, and checked before it is used.

The loop trains on whatever configuration a step yields and writes the proposal into the run's
records, so a designer -- a plug-in's above all -- must not be trusted with either. A step that
hangs, raises, runs out of memory, returns something that is not a `Proposal`, or returns one
that breaks the contract `check_designer` holds designers to (an illegal or unvalidated
configuration, changed agents or budget, NaN or infinite values, an unknown size) becomes a
*failed* step: the previous configuration is kept, the plain reason is recorded, and the run
goes on, exactly as for an LLM that could not design. Boards count and flag such steps.

A step past its deadline is abandoned, not killed: Python cannot stop a thread, and running the
designer in a process of its own would cost every designer a copy of its state. The abandoned
call runs on in a daemon thread (ended with the process) and its answer, if it ever comes, is
dropped.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from designers.base import Designer
from designers.conformance import DesignerConformanceError
from designers.conformance_rules import initial_config_problems, proposal_problems
from designers.context import DesignContext
from designers.proposal import Proposal, proposal_type
from designers.task_types import ConfigT
from tasks import DEFAULT_TASK, Task, cached_task

CONTRACT_BROKEN = "proposal broke the designer contract"
"""The failure reason of a step whose proposal `check_designer` would refuse."""


def kept_step(
    designer: str,
    config: ConfigT,
    reason: str,
    failures: Sequence[str] = (),
    seconds: float = 0.0,
) -> Proposal[ConfigT]:
    """A step that could not design: `config` (any task's) kept, `reason` in a few words,
    details in `failures` (one line each)."""
    return proposal_type(config)(designer=designer, config=config, kept_previous=True,
                                 failure_reason=reason, failures=tuple(failures),
                                 seconds=seconds)  # fmt: skip


def checked_proposal(
    designer: Designer,
    task: Task[Any, Any],
    ctx: DesignContext[Any, Any, Any],
    returned: object,
    seconds: float = 0.0,
) -> Proposal[Any]:
    """`returned` when it is a proposal the loop may use for `ctx` of `task`; else a failed
    step that keeps `ctx.config` and says why in the words `check_designer` uses."""
    name = _name(designer)
    if not isinstance(returned, Proposal):
        kind = "None" if returned is None else type(returned).__name__
        reason = f"propose returned {kind}, not a Proposal"
        return kept_step(name, ctx.config, reason, (reason,), seconds)
    problems = proposal_problems(designer, task, ctx, returned)
    if problems:
        return kept_step(name, ctx.config, CONTRACT_BROKEN, [str(p) for p in problems], seconds)
    return returned


def checked_initial_config(
    designer: Designer, task: Task[Any, Any], base: ConfigT, seed: int
) -> ConfigT | None:
    """The round 0 `designer` picks itself (None: it takes the shared start `base` of `task`),
    held to the rules `check_designer` holds it to; `DesignerConformanceError` names each
    broken one.

    No run can begin without a round 0, so a bad one ends the run before any training, rather
    than being replaced by the shared start behind the designer's name."""
    config, problems = initial_config_problems(designer, task, base, seed)
    if problems:
        raise DesignerConformanceError(_name(designer), problems)
    return config


def run_design_step(
    designer: Designer,
    ctx: DesignContext[Any, Any, Any],
    deadline_s: float,
    task: Task[Any, Any] | None = None,
) -> Proposal[Any]:
    """`designer.propose(ctx)` within `deadline_s` seconds, checked against the rules of
    `task` (default: the default task) (`checked_proposal`); a step that overruns, raises or
    runs out of memory is a failed step, never an exception."""
    task = task if task is not None else cached_task(DEFAULT_TASK)
    started = time.perf_counter()
    outcome = _call_within(lambda: designer.propose(ctx), deadline_s)
    seconds = time.perf_counter() - started
    name = _name(designer)
    if isinstance(outcome, _Overran):
        reason = f"no proposal within the design deadline of {deadline_s:g} s"
        line = f"{reason}; the step was abandoned (raise design_deadline_s to give it longer)"
        return kept_step(name, ctx.config, reason, (line,), seconds)
    if isinstance(outcome, _Raised):
        return kept_step(name, ctx.config, outcome.reason, (outcome.detail,), seconds)
    return checked_proposal(designer, task, ctx, outcome.value, seconds)


class _Returned:
    def __init__(self, value: object) -> None:
        self.value = value


class _Raised:
    def __init__(self, err: BaseException) -> None:
        kind = type(err).__name__
        self.reason = (
            "ran out of memory" if isinstance(err, MemoryError) else f"propose raised {kind}"
        )
        text = " ".join(str(err).split())[:300]
        self.detail = f"propose raised {kind}: {text}" if text else f"propose raised {kind}"


class _Overran:
    pass


def _call_within(call: Callable[[], object], deadline_s: float) -> _Returned | _Raised | _Overran:
    """What `call` returned or raised, or `_Overran` when it had not finished by the deadline."""
    box: list[_Returned | _Raised] = []

    def target() -> None:
        try:
            box.append(_Returned(call()))
        except BaseException as err:  # SystemExit too: the plug-in's, not ours to obey
            box.append(_Raised(err))

    worker = threading.Thread(target=target, name="design-step", daemon=True)
    worker.start()
    worker.join(deadline_s)
    return box[0] if box else _Overran()


def _name(designer: Designer) -> str:
    """The designer's name for its failed step, even when a plug-in left it unusable."""
    name = getattr(designer, "name", "")
    return name if isinstance(name, str) and name else type(designer).__name__
