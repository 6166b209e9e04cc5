"""What the harness knows of a backend before it builds one: a `BackendSpec`.

The round loop needs only the `Backend` protocol; everything around it -- validating the
experiment's section for the backend, how many runs may share a machine, what one run reserves
on a Ray cluster, whether the backend serves its checkpoints to designers, checking its packages
before a comparison starts, what a dry run prints -- is declared here, once per backend, in the
backend's own folder. A spec is light: building it imports none of the backend's heavy
packages; `build` does, when a run asks for its backend.

Hooks that need the experiment take it as `Any`-typed callables (each backend's own functions
are typed): the experiment's config validates the backend's section through its spec, so this
module cannot import it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from designers import ServedModel
from harness.backends.base import Backend

__all__ = [
    "BackendSpec",
    "Resources",
    "RoundZero",
    "no_problems",
    "nothing_to_check",
    "unknown_disk",
]


@dataclass(frozen=True)
class Resources:
    """What one run reserves on a Ray cluster."""

    cpus: float
    gpus: float

    @property
    def threads(self) -> int:
        """Torch threads of a run: its whole CPUs, at least one."""
        return max(1, int(self.cpus))


@dataclass(frozen=True)
class RoundZero:
    """One run as the round loop would begin it: what a dry run shows of it.

    Built by the loop's own start (`harness.loop.start_run`), so a dry run shows the designer,
    options, variant and first configuration the run itself would use.
    """

    designer: str
    seed: int
    run_path: Path
    config_file: Path
    """Where round 0's configuration is written."""
    config: BaseModel
    config_yaml: str
    """The configuration as round 0 would write it (the task's `config_yaml`)."""
    start: str
    """Where the configuration comes from (shared, the designer's own), in words."""
    wanted: tuple[ServedModel, ...]
    """The models the designer reads, which the backend would serve after each round."""
    train_seed: int
    eval_seed: int


def no_problems(policy: str, precision: str) -> list[str]:
    """A backend that accepts any policy name and either precision."""
    return []


def nothing_to_check(experiment: Any, ray_address: str | None) -> None:
    """A backend whose packages are the harness's own."""


def unknown_disk(experiment: Any) -> int | None:
    """A backend that does not say how much one run writes."""
    return None


def no_task_problem(task: Any) -> str | None:
    """Any task of the families a backend serves will do."""
    return None


def _one_cpu(settings: BaseModel | None) -> Resources:
    return Resources(cpus=1, gpus=0)


@dataclass(frozen=True)
class BackendSpec:
    """A backend's declaration: its name, its typed settings, its resources, its hooks."""

    name: str
    description: str
    build: Callable[..., Backend]
    """``build(experiment, *, threads, workdir, ray_address) -> Backend``: a fresh backend for
    one run (its policy is created by `initialise` or `load`); imports the heavy packages."""
    tasks: tuple[str, ...] | None = None
    """The task families its trainer can learn (``("mapf-frozenlake",)``); None: any task, as
    a backend that sees items only through the task's prompt, judge and reward."""
    task_problem: Callable[[Any], str | None] = no_task_problem
    """``task_problem(task) -> line | None``: why it cannot train this task although it serves
    its family (what it needs of a task beyond the `Task` protocol), in one line."""
    settings: type[BaseModel] | None = None
    """The model of the experiment's section named after the backend (``verl:``), filled with
    its defaults when the section is missing; None: the backend takes no section."""
    section_when_default: bool = True
    """Whether a recorded experiment holds the section when it is all defaults. False keeps
    the records of a backend that gained its section later (``cpu``) as they were, so runs
    recorded before and after compare equal on resume and on boards."""
    serves_models: bool = False
    """Whether it serves its checkpoints to designers that read them (``self``, ``base``)."""
    shares_machine: bool = True
    """Whether several of its runs may share one machine (the local executor's default:
    one run per core if so, else one at a time)."""
    submits_rounds_to_ray: bool = False
    """With the local executor, whether ``--ray-address`` submits each training round to that
    cluster (rather than being refused as an option of the Ray executor only)."""
    resources: Callable[[BaseModel | None], Resources] = _one_cpu
    """What one run reserves on a Ray cluster by default, from the backend's settings; raises
    ValueError when its runs cannot be Ray tasks as configured."""
    config_problems: Callable[[str, str], list[str]] = no_problems
    """One line per problem with the experiment's ``policy`` and ``precision`` for this backend."""
    check_installed: Callable[[Any, str | None], None] = nothing_to_check
    """``check_installed(experiment, ray_address)``: raises `BackendUnavailable`, naming the
    extra to install, where the backend cannot run here."""
    machine_findings: Callable[..., list[Any]] | None = None
    """``machine_findings(experiment, probe, *, root, ray_address, runtime, serving, params,
    resume, concurrent) -> list[Finding]``: what `harness doctor` and preflight check of this
    machine for the backend (the probe's facts against its needs); None: nothing of the
    machine is checked for it."""
    disk_per_run: Callable[[Any], int | None] = unknown_disk
    """``disk_per_run(experiment)``: roughly the bytes one run writes at its peak (the disk
    budget's figure), which a run that fills its disk names as what it needs; None: unknown
    here. It reads no more than local files."""
    fingerprint: Callable[[Any, int], str] | None = None
    """``fingerprint(experiment, threads) -> str``: one line with the fingerprint of a fixed
    tiny computation of the backend's learner here, in the experiment's precision on `threads`
    threads, and what it ran on (`harness doctor` prints it; every run records the
    fingerprint); None: the backend computes none."""
    dry_run: Callable[..., str] | None = None
    """``dry_run(experiment, runs: list[RoundZero], *, concurrent, ray_address) -> str``:
    every command round 0 of each run would launch; None: the backend launches nothing."""
