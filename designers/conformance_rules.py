"""The rules `check_designer` holds a designer to, each a function that returns problems.

Each problem carries the rule's name, what was seen and how to fix it, so the checker only
collects and reports; `designers.conformance` lists the rules and says why each matters.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from designers.base import Designer, backend_endpoints, own_initial_config
from designers.context import DesignContext
from designers.proposal import Proposal
from designers.task_types import ConfigT
from envdesign_common.conformance import ConformanceProblem
from envdesign_common.yaml_mappings import load_mapping
from tasks import Task


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
    """One design step under check: the designer, the task it designs for, the context it
    read, the proposal it gave."""

    designer: Designer
    task: Task[Any, Any]
    ctx: DesignContext[Any, Any, Any]
    proposal: Proposal[Any]


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
            "build the Proposal and its configuration with validation (their constructors, "
            "the task's project), never with model_construct",
        )]  # fmt: skip


def _names_itself(step: _Step) -> Iterator[Finding]:
    named, name = step.proposal.designer, step.designer.name
    if named != name:
        seen = f"proposal.designer is {named!r} but designer.name is {name!r}"
        yield seen, "set Proposal(designer=self.name, ...)"


def _legal(step: _Step) -> Iterator[Finding]:
    if notes := _projection_changes(step.task, step.proposal.config):
        yield f"the task's project would change proposal.config: {notes}", (
            "build it as task.project(ctx.config, changes).config (BaseDesigner.package "
            "does), never with model_copy(update=...) or model_construct, which skip validation"
        )  # fmt: skip


def _keeps_fixed_fields(step: _Step) -> Iterator[Finding]:
    config = step.proposal.config
    for field, got, want in _differences(
        step.task, config, step.task.settled(config, step.ctx.config)
    ):
        yield f"proposal.config.{field} is {got!r} but ctx.config.{field} is {want!r}", (
            f"keep the experiment's {field}: project the changes onto ctx.config (the "
            "task's project) instead of building a new configuration"
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
    if _projection_changes(step.task, proposal.config):
        return  # an illegal configuration cannot be read back; legal_config says how to fix it
    kind = type(proposal)
    try:
        back = kind.model_validate_json(proposal.model_dump_json())
    except ValueError as err:  # pydantic's serialisation and validation errors both are
        yield f"it does not survive JSON: {_one_line(err)}", fix
        return
    differ = [name for name in kind.model_fields if getattr(back, name) != getattr(proposal, name)]
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
    designer: Designer,
    task: Task[Any, Any],
    ctx: DesignContext[Any, Any, Any],
    proposal: Proposal[Any],
) -> list[ConformanceProblem]:
    """Every problem of `proposal`, which `designer` gave for `ctx` of `task`
    (`PROPOSAL_CHECKS`)."""
    step = _Step(designer, task, ctx, proposal)
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
    designer: Designer, task: Task[Any, Any], base: ConfigT, seed: int
) -> tuple[ConfigT | None, list[ConformanceProblem]]:
    """The designer's own round 0 for the shared start `base` of `task` and `seed`, and its
    problems."""
    try:
        config = own_initial_config(designer, task, base, seed)
    except Exception as err:
        return None, [ConformanceProblem(
            "initial_config", f"initial_config(base, seed, task) failed: {_one_line(err)}",
            "return a configuration of the task's model for a round 0 of the designer's own, "
            "or None to take the shared start",
        )]  # fmt: skip
    if config is None:
        return None, []
    problems = []
    notes = _projection_changes(task, config)
    if notes:
        problems.append(ConformanceProblem(
            "initial_config", f"the task's project would change initial_config(base, seed): "
            f"{notes}", "build it as task.project(base, changes).config",
        ))  # fmt: skip
    for field, got, want in _differences(task, config, task.settled(config, base)):
        problems.append(ConformanceProblem(
            "initial_config", f"initial_config(base, seed).{field} is {got!r} but "
            f"base.{field} is {want!r}",
            f"keep base's {field}: project the changes onto base instead of building a new "
            "configuration",
        ))  # fmt: skip
    return config, problems


def repeat_problems(
    designer: Designer,
    task: Task[Any, Any],
    ctx: DesignContext[Any, Any, Any],
    proposal: Proposal[Any],
    initial: BaseModel | None,
) -> list[ConformanceProblem]:
    """Ask again for the same context (and round 0): the same seed must give the same answer."""
    fix = (
        "draw every random choice from ctx.seed (e.g. random.Random(ctx.seed)) and keep no state "
        "between calls that changes the answer; for a designer that asks a model, pass "
        "check_determinism=False"
    )
    again, problems = propose_once(designer, ctx)
    if again is not None and again.config != proposal.config:
        differ = _difference(task, proposal.config, again.config)
        seen = f"propose(ctx) twice gave different configurations: {differ}"
        problems.append(ConformanceProblem("deterministic", seen, fix))
    try:
        second = own_initial_config(designer, task, ctx.config, ctx.seed)
    except Exception:  # reported by the initial_config check already
        return problems
    if initial is not None and second is not None and second != initial:
        differ = _difference(task, initial, second)
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


def _projection_changes(task: Task[Any, Any], config: BaseModel, shown: int = 2) -> str:
    """What the task's `project` would change in `config` ("" when nothing), a few notes
    shown."""
    projection = task.project(config, {})
    if not projection.notes and projection.config == config:
        return ""
    notes = [str(note) for note in projection.notes] or ["its values (no note says which)"]
    more = f" and {len(notes) - shown} more" if len(notes) > shown else ""
    return "; ".join(notes[:shown]) + more


def _differences(
    task: Task[Any, Any], first: BaseModel, second: BaseModel
) -> Iterator[tuple[str, Any, Any]]:
    """Each field (dotted, as the configuration's YAML names it) where two configurations
    differ, with both values."""
    if first == second:
        return
    one, two = _flat(task, first), _flat(task, second)
    changed = [(f, one.get(f), two.get(f)) for f in dict.fromkeys([*one, *two])
               if one.get(f) != two.get(f)]  # fmt: skip
    yield from changed or [("(the whole configuration)", first, second)]


def _difference(task: Task[Any, Any], first: BaseModel, second: BaseModel) -> str:
    """The first field where two configurations differ, with both values."""
    field, a, b = next(_differences(task, first, second), ("nothing", first, second))
    return f"{field} {a!r}, then {b!r}"


def _flat(task: Task[Any, Any], config: BaseModel) -> dict[str, Any]:
    """`config` as dotted fields and plain values, read from the YAML the task writes of it."""
    out: dict[str, Any] = {}

    def walk(value: Any, path: str) -> None:
        if isinstance(value, dict) and value:
            for key, inner in value.items():
                walk(inner, f"{path}.{key}" if path else str(key))
        else:
            out[path] = value

    walk(load_mapping(task.config_yaml(config), "configuration"), "")
    return out


def _one_line(err: BaseException, limit: int = 300) -> str:
    """`err` in one line: a pydantic error as its first field and message, not its dump."""
    if isinstance(err, ValidationError) and err.errors():
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        more = f" (and {err.error_count() - 1} more)" if err.error_count() > 1 else ""
        return f"{err.title} {where}: {first['msg']}{more}"
    text = " ".join(f"{type(err).__name__}: {err}".split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
