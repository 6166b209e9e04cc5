"""The `Designer` interface and the base classes the built-in designers extend.

A designer is anything with a `name`, a `description` and `propose(ctx) -> Proposal`.
`BaseDesigner` adds the common path -- merge a change set onto the current configuration,
project it onto the constraints, time it, package a `Proposal` -- and `RuleDesigner` narrows it
to one method, `changes(ctx)`, so a rule-based designer only decides *what* to change.
Designers that choose their own round-0 configuration (a hand curriculum) say so with
`initial_config`; the harness records which start each run used. Designers that ask a model the
training backend serves (`self`: the current checkpoint, `base`: the untouched base model) say
so with `backend_endpoints`, so the harness serves only what is read.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar, Literal, Protocol, runtime_checkable

from designers.context import DesignContext
from designers.proposal import Proposal, proposal_type
from designers.task_types import ConfigT
from mapf_env import EnvConfig
from mapf_env.instance import size_name
from tasks import Task, serves


@runtime_checkable
class Designer(Protocol):
    """What the harness needs of a designer: a name, a description and `propose`.

    Three methods and two attributes are optional (see `own_initial_config`, `ensure_ready`,
    `backend_endpoints` and `task_problem`): ``initial_config(base, seed, task) -> config | None``
    for a designer that picks its own round 0, ``check_ready()`` raising `DesignerNotReady`
    before training when it cannot work, ``backend_endpoints``, the models it asks the backend
    to serve, ``tasks``, the task families it can design for (absent or None: any), and
    ``task_problems(task) -> lines`` for what it needs of a task it serves.
    """

    name: str
    description: str

    def propose(self, ctx: DesignContext) -> Proposal: ...


def own_initial_config(
    designer: Designer, task: Task[Any, Any], base: ConfigT, seed: int
) -> ConfigT | None:
    """The round-0 configuration `designer` picks itself for `task` (of `base`'s model, the
    task's), or None to take the shared start `base`."""
    pick = getattr(designer, "initial_config", None)
    config = pick(base, seed, task) if callable(pick) else None
    if config is not None and not isinstance(config, type(base)):
        raise TypeError(f"designer {designer.name!r} returned a {type(config).__name__} as round 0")
    return config


ServedModel = Literal["policy", "base"]
"""Which model a server holds for a designer: the current checkpoint (`self`) or the untouched
base model (`base`); the training backend serves it."""


def backend_endpoints(designer: Designer) -> tuple[ServedModel, ...]:
    """The models `designer` reads from the training backend's servers, through the context's
    ``policy_endpoint`` / ``base_endpoint``: its optional ``backend_endpoints`` attribute."""
    wanted = tuple(getattr(designer, "backend_endpoints", ()))
    for which in wanted:
        if which not in ("policy", "base"):
            raise TypeError(
                f"designer {designer.name!r} asks for a backend endpoint {which!r}; "
                "the choices are 'policy' and 'base'"
            )
    return wanted


def ensure_ready(designer: Designer) -> None:
    """Raise `DesignerNotReady` now, before any training, if `designer` cannot work."""
    check = getattr(designer, "check_ready", None)
    if callable(check):
        check()


class DesignerNotReady(RuntimeError):
    """A designer cannot run as configured (e.g. `self` without a served checkpoint)."""


def task_problem(designer: object, name: str, task: Task[Any, Any]) -> str | None:
    """Why designer entry `name` cannot design for `task`, one line per problem, or None.

    A designer declares the task families its code reads (``tasks = ("mapf-frozenlake",)``)
    as an attribute of its class or factory, so `harness designers list` can show it without
    building one; a versioned id (``mapf-frozenlake-v2``) is served when its family is. A
    designer that serves any task may still need what a task declares (a teacher: a share
    knob over the first cut) or find its options naming what the task lacks: its optional
    ``task_problems(task)`` says so."""
    served = getattr(designer, "tasks", None)
    if served is not None and not serves(served, task.id):
        return (
            f"designer {name!r} designs for {', '.join(served)} only, not for task {task.id!r}; "
            "choose designers that serve the task (harness designers list says which)"
        )
    check = getattr(designer, "task_problems", None)
    lines = list(check(task)) if callable(check) else []
    return "\n".join(lines) or None


class BaseDesigner(ABC):
    """Shared plumbing for designers: defaults for the optional methods and `package`."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    tasks: ClassVar[tuple[str, ...] | None] = ("mapf-frozenlake",)
    """The task families this designer's code reads: most built-ins read MAPF-FrozenLake's
    configuration; None for a designer that reads only what every task declares."""

    def initial_config(self, base: Any, seed: int, task: Task[Any, Any]) -> Any:
        """None: take the shared start `base` (a designer that picks its own round 0, of
        `task`'s configuration model, overrides this)."""
        return None

    def check_ready(self) -> None:
        return None

    @abstractmethod
    def propose(self, ctx: DesignContext) -> Proposal:
        """The next round's configuration and how it came about."""

    def package(
        self,
        ctx: DesignContext,
        changes: Mapping[str, Any],
        rationale: str,
        started: float,
        **extra: Any,
    ) -> Proposal:
        """Project `changes` onto the current config (the task's `project`) and wrap the
        result."""
        projection = ctx.design_task().project(ctx.config, changes)
        return proposal_type(projection.config)(
            designer=self.name,
            config=projection.config,
            changes=dict(changes),
            notes=projection.notes,
            rationale=rationale,
            seconds=time.perf_counter() - started,
            **extra,
        )


def as_changes(config: EnvConfig) -> dict[str, Any]:
    """Every size of `config` as a change set, keyed by size name (the YAML and JSON form)."""
    return {size_name(s): entry.model_dump() for s, entry in config.sizes.items()}


class RuleDesigner(BaseDesigner):
    """A designer that computes a change set from the context: it implements `changes` only."""

    @abstractmethod
    def changes(self, ctx: DesignContext) -> tuple[Mapping[str, Any], str]:
        """The change set for the next round and the reason for it."""

    def propose(self, ctx: DesignContext) -> Proposal:
        started = time.perf_counter()
        changes, rationale = self.changes(ctx)
        return self.package(ctx, changes, rationale, started)
