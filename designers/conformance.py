"""`check_designer`: does a designer keep the contract the round loop relies on?

The loop trusts a designer's proposal as it comes: it trains the configuration, records the
proposal as JSON and reads it back on resume, and shows the rationale and failures on the boards.
A designer that breaks one of those assumptions fails late, mid-run, or worse, quietly skews a
comparison. So, as Gymnasium checks an environment before anybody trains on it, one function
checks a designer before it enters a comparison -- the same function the project's tests run over
every registered designer, so a plug-in is held to exactly what the built-ins are.

It runs the designer on representative contexts (`sample_contexts`, or the caller's) of a task
(MAPF-FrozenLake unless the caller names one) and checks:

- ``name``, ``description``: non-empty strings (the registry and boards show them);
  ``backend_endpoints``, if declared, names only "policy" or "base";
- ``propose``: it returns and does not raise (a designer that cannot design says so in its
  proposal, so the run goes on and the failure is counted); ``returns_proposal``: a `Proposal`;
- ``proposal_designer``: the proposal names its designer; ``legal_config``: its configuration is
  legal as it stands (the task's `project` changes nothing); ``fixed_fields``: it keeps what the
  experiment fixes (the task's `settled` on the context's configuration changes nothing: for
  MAPF-FrozenLake the agents, samples and objective); ``seconds``: a finite number >= 0;
  ``kept_previous``: a kept step keeps the context's configuration and carries a
  `failure_reason`, and only a kept step does; ``json_round_trip``: it reads back from its JSON
  equal, as run records must;
- ``initial_config``: a round 0 of its own, if any, is a legal configuration of the task's
  model that keeps what the experiment fixes;
- ``deterministic``: the same context gives the same configuration, and the same base and seed
  the same round 0. The harness promises that a seed reproduces a run, and `DesignContext.seed`
  is where a designer's randomness comes from. A designer that asks a model cannot promise it;
  pass ``check_determinism=False`` for one (the built-in LLM designers are checked that way).

Every distinct problem is collected, each at the first context that shows it, and raised at the
end as one `DesignerConformanceError`, one line per problem saying what was seen and how to fix
it: like every error of this project it lists all that is wrong at once, so a plug-in author
fixes them in one pass rather than one re-run per bug. Checks that read a proposal skip a
context where none came back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from designers.base import Designer, ensure_ready
from designers.conformance_rules import (
    identity_problems,
    initial_config_problems,
    not_a_designer,
    proposal_problems,
    propose_once,
    repeat_problems,
)
from designers.context import DesignContext
from designers.proposal import Proposal
from designers.sample_contexts import sample_contexts
from envdesign_common.conformance import ConformanceError, ConformanceProblem, collect_problems
from tasks import DEFAULT_TASK, Task, cached_task


class DesignerConformanceError(ConformanceError):
    """A designer breaks the designer contract; `problems` holds one entry per broken rule."""

    kind = "designer"

    @property
    def designer(self) -> str:
        return self.name


def check_designer(
    designer: object,
    contexts: Sequence[DesignContext[Any, Any, Any]] | None = None,
    *,
    check_determinism: bool = True,
    task: Task[Any, Any] | None = None,
) -> tuple[Proposal[Any], ...]:
    """Run `designer` on `contexts` (default `sample_contexts()`); raise
    `DesignerConformanceError` naming every rule it breaks, else return its proposals, one per
    context, for checks of the caller's own.

    `designer` may be any object: one without the `Designer` protocol fails the first check.
    (A class whose `name` is a ``ClassVar``, as `RuleDesigner`'s is, is a `Designer` at run
    time but not to a type checker, so the parameter is not typed `Designer`.) Its readiness
    is asked first, as the harness asks before training: `DesignerNotReady` (a missing key, no
    served model) passes through unchanged, since it is about this machine, not the designer.
    """
    label = str(getattr(designer, "name", "") or type(designer).__name__)
    task = task if task is not None else cached_task(DEFAULT_TASK)
    if not isinstance(designer, Designer):
        raise DesignerConformanceError(label, [not_a_designer(designer)])
    chosen = sample_contexts() if contexts is None else list(contexts)
    if not chosen:
        raise ValueError(
            "check_designer got no contexts: pass at least one DesignContext, or None for "
            "sample_contexts()"
        )
    ensure_ready(designer)
    found: dict[tuple[str, str], ConformanceProblem] = {}
    collect_problems(found, identity_problems(designer), "")
    proposals = []
    for i, ctx in enumerate(chosen):
        where = f"context {i}: round {ctx.round} of {ctx.total_rounds}, seed {ctx.seed}"
        proposal, problems = _context_problems(designer, task, ctx, check_determinism)
        collect_problems(found, problems, where)
        if proposal is not None:
            proposals.append(proposal)
    if found:
        raise DesignerConformanceError(label, list(found.values()))
    return tuple(proposals)


def _context_problems(
    designer: Designer,
    task: Task[Any, Any],
    ctx: DesignContext[Any, Any, Any],
    check_determinism: bool,
) -> tuple[Proposal[Any] | None, list[ConformanceProblem]]:
    """The proposal for `ctx` (None when none came back) and every problem `ctx` shows."""
    proposal, problems = propose_once(designer, ctx)
    if proposal is not None:
        problems += proposal_problems(designer, task, ctx, proposal)
    initial, found = initial_config_problems(designer, task, ctx.config, ctx.seed)
    problems += found
    if check_determinism and proposal is not None:
        problems += repeat_problems(designer, task, ctx, proposal, initial)
    return proposal, problems
