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

import hashlib
import random
from collections import Counter
from dataclasses import dataclass, field

from mapf_env.instance import Instance, Objective
from mapf_env.layout import Lake, place_crossing, place_random, sample_lake
from mapf_env.solver import SolveResult, SolverLimits, find_optimum, needs_conflict_resolution

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


def slot_seed(*parts: object) -> int:
    """A 64-bit seed from the slot's key, stable across processes and Python versions."""
    key = "/".join(str(p) for p in parts).encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big")


def requested_holes(size: int, hole_ratio: float, n_agents: int) -> int:
    """Holes for the requested share, leaving at least the cells the agents must stand on."""
    return max(0, min(round(hole_ratio * size * size), size * size - 2 * n_agents))


def sample_slot(spec: SlotSpec, seed: int, name: str) -> SlotOutcome:
    rng = random.Random(seed)
    holes = requested_holes(spec.size, spec.hole_ratio, spec.n_agents)
    rejections: Counter[str] = Counter()
    spares: list[tuple[Instance, Lake, bool]] = []
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
        if instance is None:
            rejections["no_room" if len(lake.component) < 2 * spec.n_agents else "no_crossing"] += 1
            dry_run += 1
            continue
        conflict = needs_conflict_resolution(instance)
        if conflict is None:  # cannot happen inside one component; kept as a guard
            rejections["unreachable"] += 1
            dry_run += 1
            continue
        if conflict != spec.want_conflict:
            rejections["conflict" if conflict else "no_conflict"] += 1
            if len(spares) < 4:
                spares.append((instance, lake, crossing))
            if conflict:  # conflict-free layouts are always solvable; conflicted ones may not be
                dry_run += 1
            else:
                dry_run = 0
            continue
        solved = find_optimum(instance, spec.objective, GENERATOR_LIMITS)
        if isinstance(solved, SolveResult):
            rejections[solved.status.value] += 1
            dry_run += 1
            continue
        return SlotOutcome(
            instance.model_copy(update={"optimum": solved}),
            spec,
            lake.holes,
            lake.dead_cells,
            attempt,
            True,
            crossing,
            rejections,
        )
    return _nearest(spec, spares, rejections, holes)


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


def _nearest(
    spec: SlotSpec, spares: list[tuple[Instance, Lake, bool]], rejections: Counter[str], holes: int
) -> SlotOutcome:
    """The wanted kind never came: keep the first solvable instance of the other kind."""
    for instance, lake, crossing in spares:
        solved = find_optimum(instance, spec.objective, GENERATOR_LIMITS)
        if not isinstance(solved, SolveResult):
            return SlotOutcome(
                instance.model_copy(update={"optimum": solved}),
                spec,
                lake.holes,
                lake.dead_cells,
                MAX_ATTEMPTS,
                False,
                crossing,
                rejections,
            )
        rejections[solved.status.value] += 1
    return SlotOutcome(None, spec, holes, 0, MAX_ATTEMPTS, False, False, rejections)
