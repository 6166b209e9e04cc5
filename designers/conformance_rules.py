"""The rules `check_designer` holds a designer to, each a function that returns problems.

Each problem carries the rule's name, what was seen and how to fix it, so the checker only
collects and reports; `designers.conformance` lists the rules and says why each matters.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import Enum
from typing import Any

from pydantic import ValidationError

from designers.base import Designer, backend_endpoints, own_initial_config
from designers.context import DesignContext
from designers.proposal import Proposal
from envdesign_common.conformance import ConformanceProblem
from mapf_env import EnvConfig, project
from mapf_env.instance import size_name

FIXED_FIELDS = ("n_agents", "samples", "objective")
"""The experiment's fields a proposal keeps; a round 0 of the designer's own keeps the first two
(the loop sets its objective)."""


def propose_once(
    designer: Designer, ctx: DesignContext
) -> tuple[Proposal | None, list[ConformanceProblem]]:
    """`designer`'s proposal for `ctx`, or None and the problem when it raised or gave no
    `Proposal`."""
    try:
        proposal = designer.propose(ctx)
    except Exception as err:  # the checker reports a crash like any other broken rule
        return None, [ConformanceProblem(
            "propose", f"propose(ctx) raised {_one_line(err)}",
            "fix the error; a designer that cannot design returns Proposal(designer=self.name, "
            "config=ctx.config, kept_previous=True, failure_reason='...') instead of raising, "
            "so the run goes on and records the failed step",
        )]  # fmt: skip
    if not isinstance(proposal, Proposal):
        return None, [ConformanceProblem(
            "returns_proposal", f"propose(ctx) returned {type(proposal).__name__}, not a Proposal",
            "return a designers.Proposal (RuleDesigner and BaseDesigner.package build one)",
        )]  # fmt: skip
    return proposal, []


@dataclass(frozen=True)
class _Step:
    """One design step under check: the designer, the context it read, the proposal it gave."""

    designer: Designer
    ctx: DesignContext
    proposal: Proposal


Finding = tuple[str, str]
"""What a check saw and how to fix it; the check's name comes from `PROPOSAL_CHECKS`."""


def _guarded(
    name: str, check: Callable[[_Step], Iterator[Finding]], step: _Step
) -> list[ConformanceProblem]:
    """`check`'s problems; a check that cannot even read the proposal is a problem of its own."""
    try:
        return [ConformanceProblem(name, seen, fix) for seen, fix in check(step)]
    except Exception as err:
        return [ConformanceProblem(
            name, f"reading the proposal raised {_one_line(err)}",
            "build the Proposal and its EnvConfig with validation (their constructors, "
            "mapf_env.project), never with model_construct",
        )]  # fmt: skip


def _names_itself(step: _Step) -> Iterator[Finding]:
    named, name = step.proposal.designer, step.designer.name
    if named != name:
        seen = f"proposal.designer is {named!r} but designer.name is {name!r}"
        yield seen, "set Proposal(designer=self.name, ...)"


def _legal(step: _Step) -> Iterator[Finding]:
    if notes := _projection_changes(step.proposal.config):
        yield f"mapf_env.project would change proposal.config: {notes}", (
            "build it as mapf_env.project(mapf_env.merge(ctx.config, changes)).config "
            "(BaseDesigner.package does), never with model_copy(update=...) or "
            "model_construct, which skip validation"
        )  # fmt: skip


def _keeps_fixed_fields(step: _Step) -> Iterator[Finding]:
    for field in FIXED_FIELDS:
        got = _plain(getattr(step.proposal.config, field))
        want = _plain(getattr(step.ctx.config, field))
        if got != want:
            yield f"proposal.config.{field} is {got!r} but ctx.config.{field} is {want!r}", (
                f"keep the experiment's {field}: merge the changes onto ctx.config "
                "(mapf_env.merge) instead of building a new EnvConfig"
            )  # fmt: skip


def _seconds(step: _Step) -> Iterator[Finding]:
    seconds = step.proposal.seconds
    if not (math.isfinite(seconds) and seconds >= 0):
        yield f"proposal.seconds is {seconds!r}", (
            "set it to the wall time propose took (time.perf_counter() - started), or leave "
            "the default 0"
        )  # fmt: skip


def _kept_previous(step: _Step) -> Iterator[Finding]:
    kept, reason = step.proposal.kept_previous, step.proposal.failure_reason
    if kept and step.proposal.config != step.ctx.config:
        yield "proposal.kept_previous is True but proposal.config is not ctx.config", (
            "a step that could not design returns config=ctx.config; one that designed sets "
            "kept_previous=False"
        )  # fmt: skip
    if kept and reason is None:
        yield "proposal.kept_previous is True but failure_reason is None", (
            "say why in a few words, e.g. failure_reason='rate limit': boards count and show "
            "failed steps by reason"
        )  # fmt: skip
    if not kept and reason is not None:
        yield f"proposal.failure_reason is {reason!r} but kept_previous is False", (
            "set kept_previous=True and config=ctx.config when the designer could not design, "
            "else leave failure_reason None (list minor troubles in failures)"
        )  # fmt: skip


def _json_round_trip(step: _Step) -> Iterator[Finding]:
    fix = (
        "keep changes and every other field to JSON types (string keys, numbers, strings, "
        "lists, dicts): run records store proposals as JSON and resume reads them back"
    )
    proposal = step.proposal
    if _projection_changes(proposal.config):
        return  # an illegal configuration cannot be read back; legal_config says how to fix it
    try:
        back = Proposal.model_validate_json(proposal.model_dump_json())
    except ValueError as err:  # pydantic's serialisation and validation errors both are
        yield f"it does not survive JSON: {_one_line(err)}", fix
        return
    differ = [
        name for name in Proposal.model_fields if getattr(back, name) != getattr(proposal, name)
    ]
    if differ:
        yield f"read back from its JSON, proposal.{', '.join(differ)} differs", fix


PROPOSAL_CHECKS: dict[str, Callable[[_Step], Iterator[Finding]]] = {
    "proposal_designer": _names_itself,
    "legal_config": _legal,
    "fixed_fields": _keeps_fixed_fields,
    "seconds": _seconds,
    "kept_previous": _kept_previous,
    "json_round_trip": _json_round_trip,
}
"""The checks of one proposal, by the name a problem reports."""


def proposal_problems(
    designer: Designer, ctx: DesignContext, proposal: Proposal
) -> list[ConformanceProblem]:
    """Every problem of `proposal`, which `designer` gave for `ctx` (`PROPOSAL_CHECKS`)."""
    step = _Step(designer, ctx, proposal)
    return [p for name, check in PROPOSAL_CHECKS.items() for p in _guarded(name, check, step)]


def identity_problems(designer: Designer) -> Iterator[ConformanceProblem]:
    """Problems of the designer itself, shown on no context: name, description, endpoints."""
    fixes = {
        "name": "set a short name, by convention its entry point's: name = 'mine'",
        "description": "set one line saying what it does, shown by `harness designers list`: "
        "description = '...'",
    }
    for attr, fix in fixes.items():
        value = getattr(designer, attr, None)
        if not isinstance(value, str) or not value.strip():
            yield ConformanceProblem(attr, f"designer.{attr} is {value!r}", fix)
    try:
        backend_endpoints(designer)
    except TypeError as err:
        yield ConformanceProblem(
            "backend_endpoints", _one_line(err),
            "list only 'policy' (the checkpoint in training) or 'base' (the untrained model), "
            "or leave backend_endpoints out",
        )  # fmt: skip


def initial_config_problems(
    designer: Designer, base: EnvConfig, seed: int
) -> tuple[EnvConfig | None, list[ConformanceProblem]]:
    """The designer's own round 0 for the shared start `base` and `seed`, and its problems."""
    try:
        config = own_initial_config(designer, base, seed)
    except Exception as err:
        return None, [ConformanceProblem(
            "initial_config", f"initial_config(base, seed) failed: {_one_line(err)}",
            "return an EnvConfig for a round 0 of the designer's own, or None to take the "
            "shared start",
        )]  # fmt: skip
    if config is None:
        return None, []
    problems = []
    notes = _projection_changes(config)
    if notes:
        problems.append(ConformanceProblem(
            "initial_config", f"mapf_env.project would change initial_config(base, seed): {notes}",
            "build it as mapf_env.project(mapf_env.merge(base, changes)).config",
        ))  # fmt: skip
    for field in FIXED_FIELDS[:2]:
        got, want = getattr(config, field), getattr(base, field)
        if got != want:
            problems.append(ConformanceProblem(
                "initial_config", f"initial_config(base, seed).{field} is {got!r} but "
                f"base.{field} is {want!r}",
                f"keep base's {field}: merge the changes onto base instead of building a new "
                "EnvConfig",
            ))  # fmt: skip
    return config, problems


def repeat_problems(
    designer: Designer, ctx: DesignContext, proposal: Proposal, initial: EnvConfig | None
) -> list[ConformanceProblem]:
    """Ask again for the same context (and round 0): the same seed must give the same answer."""
    fix = (
        "draw every random choice from ctx.seed (e.g. random.Random(ctx.seed)) and keep no state "
        "between calls that changes the answer; for a designer that asks a model, pass "
        "check_determinism=False"
    )
    again, problems = propose_once(designer, ctx)
    if again is not None and again.config != proposal.config:
        differ = _difference(proposal.config, again.config)
        seen = f"propose(ctx) twice gave different configurations: {differ}"
        problems.append(ConformanceProblem("deterministic", seen, fix))
    try:
        second = own_initial_config(designer, ctx.config, ctx.seed)
    except Exception:  # reported by the initial_config check already
        return problems
    if initial is not None and second is not None and second != initial:
        differ = _difference(initial, second)
        seen = f"initial_config(base, seed) twice gave different rounds 0: {differ}"
        problems.append(ConformanceProblem("deterministic", seen, fix))
    return problems


def not_a_designer(value: object) -> ConformanceProblem:
    """The one problem of an object without the `Designer` protocol: what it lacks."""
    lacks = [attr for attr in ("name", "description", "propose") if not hasattr(value, attr)]
    return ConformanceProblem(
        "protocol",
        f"{type(value).__name__!r} object lacks {', '.join(lacks) or 'a callable propose'}",
        "give the class name and description attributes and a propose(ctx) -> Proposal method "
        "(or extend designers.RuleDesigner)",
    )  # fmt: skip


def _projection_changes(config: EnvConfig, shown: int = 2) -> str:
    """What `mapf_env.project` would change in `config` ("" when nothing), a few notes shown."""
    projection = project(config)
    if not projection.changed and projection.config == config:
        return ""
    notes = [str(note) for note in projection.notes] or ["its values (no note says which)"]
    more = f" and {len(notes) - shown} more" if len(notes) > shown else ""
    return "; ".join(notes[:shown]) + more


def _difference(first: EnvConfig, second: EnvConfig) -> str:
    """The first field where two configurations differ, with both values."""
    pairs = [(field, getattr(first, field), getattr(second, field)) for field in FIXED_FIELDS]
    for size, entry in first.sizes.items():
        other = second.sizes.get(size)
        for field in type(entry).model_fields:
            pairs.append((f"sizes.{size_name(size)}.{field}", getattr(entry, field),
                          getattr(other, field, None)))  # fmt: skip
    for field, a, b in pairs:
        if a != b:
            return f"{field} {_plain(a)!r}, then {_plain(b)!r}"
    return "their sizes differ"


def _plain(value: Any) -> Any:
    """An enum as its value, so messages read 'makespan' rather than <Objective.MAKESPAN: ...>."""
    return value.value if isinstance(value, Enum) else value


def _one_line(err: BaseException, limit: int = 300) -> str:
    """`err` in one line: a pydantic error as its first field and message, not its dump."""
    if isinstance(err, ValidationError) and err.errors():
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        more = f" (and {err.error_count() - 1} more)" if err.error_count() > 1 else ""
        return f"{err.title} {where}: {first['msg']}{more}"
    text = " ".join(f"{type(err).__name__}: {err}".split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
