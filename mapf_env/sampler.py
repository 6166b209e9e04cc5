"""One instance for one slot of a round: bounded attempts, exact conflict targeting.

Each slot asks for an instance of a given size, agent count and hole share, that either needs
conflict resolution or does not. The slot's random stream is seeded from its key alone, so
instance i is the same however many instances are generated, in whatever order or process.

Attempts are bounded (`MAX_ATTEMPTS`). When a request cannot be met the sampler moves to the
nearest achievable setting instead of hanging: after a run of attempts with no solvable layout it
removes holes; when the wanted kind (conflict / conflict-free) never appears it returns the
best instance of the other kind and says so. Solver node limits, not clocks, bound every search,
so the same key gives the same instance on any machine.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from mapf_env.instance import Instance, Objective
from mapf_env.layout import Lake, place_crossing, place_random, sample_lake
from mapf_env.solver import (
    SolveResult,
    SolverLimits,
    SolveStatus,
    find_optimum,
    needs_conflict_resolution,
)

MAX_ATTEMPTS = 240
"""Layouts tried per slot before falling back to the nearest achievable instance."""
HOLE_RELIEF_EVERY = 12
"""Attempts without any solvable layout after which one more hole is removed."""
CROSSING_FROM = 4
"""Attempt from which conflict slots place agents across each other's paths half the time."""
GENERATOR_LIMITS = SolverLimits(max_nodes=200_000, time_limit_s=float("inf"))
"""Node-bounded, clock-free: a slow machine must not change which instance a slot gets."""


@dataclass(frozen=True, slots=True)
class SlotSpec:
    size: int
    n_agents: int
    hole_ratio: float
    want_conflict: bool
    objective: Objective = Objective.SOC

    def __post_init__(self) -> None:
        # A config changed with `model_copy(update=...)` is not validated, so its objective can
        # be the plain string "makespan"; the solver's identity checks would then read it as
        # SOC and record a SOC-optimal plan's makespan as the minimum. Normalise it here, where
        # every slot is made (an unknown name raises instead of picking an objective).
        object.__setattr__(self, "objective", Objective(self.objective))


@dataclass(slots=True)
class SlotOutcome:
    """The instance a slot got (None only when not even a hole-free layout was solvable)."""

    instance: Instance | None
    spec: SlotSpec
    holes: int
    dead_cells: int
    attempts: int
    kind_met: bool
    used_crossing: bool = False
    rejections: Counter[str] = field(default_factory=Counter)
    limited: list[int] = field(default_factory=list)
    """Attempts rejected because the solver hit its node limit (replayed by `skip`)."""


def requested_holes(size: int, hole_ratio: float, n_agents: int) -> int:
    """Holes for the requested share, leaving at least the cells the agents must stand on."""
    return max(0, min(round(hole_ratio * size * size), size * size - 2 * n_agents))


def sample_slot(
    spec: SlotSpec, seed: int, name: str, skip: frozenset[int] = frozenset()
) -> SlotOutcome:
    """Fill one slot. Attempts listed in `skip` are rejected as solver limits without solving.

    `skip` replays the attempts an earlier build gave up on (`SlotOutcome.limited`), which makes
    a rebuild independent of how far a later, faster solver would have got on them.
    """
    rng = random.Random(seed)
    holes = requested_holes(spec.size, spec.hole_ratio, spec.n_agents)
    out = SlotOutcome(None, spec, holes, 0, 0, False)
    spares: list[tuple[Instance, Lake, bool, int]] = []
    dry_run = 0
    for attempt in range(1, MAX_ATTEMPTS + 1):
        if dry_run >= HOLE_RELIEF_EVERY and holes > 0:
            holes, dry_run = holes - 1, 0
        lake = sample_lake(rng, spec.size, holes)
        crossing = (
            spec.want_conflict
            and spec.n_agents >= 2
            and attempt >= CROSSING_FROM
            and rng.random() < 0.5
        )
        instance = _place(rng, lake, spec, crossing, name)
        reason = _reject_reason(instance, lake, spec)
        if instance is not None:
            if reason in ("conflict", "no_conflict") and len(spares) < 4:
                spares.append((instance, lake, crossing, attempt))
            if reason is None:
                reason = _solve_into(out, instance, lake, crossing, attempt, skip)
                if reason is None:
                    out.attempts, out.kind_met = attempt, True
                    return out
        out.rejections[reason or "unknown"] += 1
        dry_run = 0 if reason == "no_conflict" else dry_run + 1
    out.attempts = MAX_ATTEMPTS
    for instance, lake, crossing, attempt in spares:  # the wanted kind never came
        reason = _solve_into(out, instance, lake, crossing, attempt, skip)
        if reason is None:
            return out
        out.rejections[reason] += 1
    return out


def _reject_reason(instance: Instance | None, lake: Lake, spec: SlotSpec) -> str | None:
    """Why a placement cannot fill the slot before any solving; None when it may."""
    if instance is None:
        return "no_room" if len(lake.component) < 2 * spec.n_agents else "no_crossing"
    conflict = needs_conflict_resolution(instance)
    if conflict is None:  # cannot happen inside one component; kept as a guard
        return "unreachable"
    if conflict != spec.want_conflict:
        return "conflict" if conflict else "no_conflict"
    return None


def _solve_into(
    out: SlotOutcome,
    instance: Instance,
    lake: Lake,
    crossing: bool,
    attempt: int,
    skip: frozenset[int],
) -> str | None:
    """Solve `instance` into `out`; the rejection reason when it cannot be used."""
    if attempt in skip:
        out.limited.append(attempt)
        return SolveStatus.LIMIT.value
    solved = find_optimum(instance, out.spec.objective, GENERATOR_LIMITS)
    if isinstance(solved, SolveResult):
        if solved.status is SolveStatus.LIMIT:
            out.limited.append(attempt)
        return solved.status.value
    out.instance = instance.model_copy(update={"optimum": solved})
    out.holes, out.dead_cells, out.used_crossing = lake.holes, lake.dead_cells, crossing
    return None


def _place(
    rng: random.Random, lake: Lake, spec: SlotSpec, crossing: bool, name: str
) -> Instance | None:
    if len(lake.component) < 2 * spec.n_agents:
        return None
    pairs = place_crossing(rng, lake, spec.n_agents) if crossing else None
    if crossing and pairs is None:
        return None
    if pairs is None:
        pairs = place_random(rng, lake, spec.n_agents)
    return Instance(
        grid=lake.rows,
        starts=tuple(lake.cell(s) for s, _ in pairs),
        goals=tuple(lake.cell(g) for _, g in pairs),
        id=name,
    )
