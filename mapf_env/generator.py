"""A round's training data from an `EnvConfig`, and what the generator actually achieved.

`generate(config, seed)` splits the sample budget over sizes by their ratios (largest remainder,
so the total is exact), marks each slot of a size as conflict or conflict-free so that the
size's wait_ratio is met, and fills every slot independently (see `sampler`). Slots are spread
over worker processes; their keys fix the result, so the output is byte-identical whatever the
number of workers.

The returned `GenerationStats` are what designers see as "environment statistics": achieved
hole and conflict shares per size, rejections by reason, shortfalls, dead cells and mean optimal
cost. A designer that asks for something impossible learns it here.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor

from pydantic import BaseModel, ConfigDict, Field

from envdesign_common.field_errors import ConfigError
from envdesign_common.seeds import key_seed
from mapf_env.config import EnvConfig
from mapf_env.instance import Instance, size_name
from mapf_env.sampler import SlotOutcome, SlotSpec, sample_slot

ProgressFn = Callable[[int, int], None]
"""Called with (slots done, slots total) as generation proceeds."""
_PARALLEL_FROM = 200
_CHUNK = 64


class SizeStats(BaseModel):
    """Requested against achieved, for one map size."""

    model_config = ConfigDict(frozen=True)

    size: int
    requested: int = Field(description="Slots given to this size by its ratio.")
    generated: int = Field(description="Instances made (less than requested only if impossible).")
    target_hole_ratio: float
    hole_ratio: float = Field(description="Mean achieved share of holes.")
    dead_cell_ratio: float = Field(description="Mean share of ice cut off from the agents.")
    target_wait_ratio: float
    wait_ratio: float = Field(description="Achieved share needing conflict resolution.")
    kind_shortfall: int = Field(description="Slots that could not get the conflict kind asked.")
    hole_relief: int = Field(description="Instances made with fewer holes than asked.")
    crossing_placements: int = Field(description="Conflict instances placed across a path.")
    attempts: int = Field(description="Layouts tried in all.")
    rejections: dict[str, int] = Field(description="Rejected layouts by reason.")
    mean_optimal_cost: float = Field(description="Mean optimal objective value.")


class GenerationStats(BaseModel):
    model_config = ConfigDict(frozen=True)

    sizes: dict[int, SizeStats]
    total: int
    seconds: float
    workers: int

    def shortfalls(self) -> list[str]:
        """Human sentences for every request the generator could not meet."""
        lines = []
        for s in self.sizes.values():
            if s.generated < s.requested:
                lines.append(f"{size_name(s.size)}: {s.requested - s.generated} slots empty")
            if s.kind_shortfall:
                lines.append(
                    f"{size_name(s.size)}: wait_ratio {s.target_wait_ratio:.2f} asked, "
                    f"{s.wait_ratio:.2f} reached ({s.kind_shortfall} slots)"
                )
            if s.hole_relief:
                lines.append(
                    f"{size_name(s.size)}: hole_ratio {s.target_hole_ratio:.2f} asked, "
                    f"{s.hole_ratio:.2f} reached ({s.hole_relief} instances relieved)"
                )
        return lines


class GeneratedRound(BaseModel):
    """The instances of one round, the config and seed that made them, and their statistics."""

    model_config = ConfigDict(frozen=True)

    config: EnvConfig
    seed: int
    instances: tuple[Instance, ...]
    stats: GenerationStats


def size_counts(config: EnvConfig) -> dict[int, int]:
    """Samples per size: ratio x budget, rounded by largest remainder so the total is exact."""
    raw = {s: c.ratio * config.samples for s, c in config.sizes.items()}
    counts = {s: math.floor(v) for s, v in raw.items()}
    short = config.samples - sum(counts.values())
    for s in sorted(raw, key=lambda s: (counts[s] - raw[s], s))[:short]:
        counts[s] += 1
    return counts


def conflict_slots(n: int, wait_ratio: float) -> list[bool]:
    """Which of n slots need conflict resolution: round(n x wait_ratio) of them, spread evenly.

    Slot j's kind depends only on j and the ratio (never on n), so the first slots of a size
    keep their instances when its budget changes.
    """
    return [
        math.floor((j + 1) * wait_ratio + 0.5) > math.floor(j * wait_ratio + 0.5) for j in range(n)
    ]


def round_slots(config: EnvConfig, seed: int) -> list[Slot]:
    """Every slot of a round as (spec, slot seed, instance id), sizes ascending."""
    slots = []
    for size, n in size_counts(config).items():
        if n and 2 * config.n_agents > size * size:
            raise ConfigError(
                f"{size_name(size)} cannot hold {config.n_agents} agents (they need "
                f"{2 * config.n_agents} distinct cells); set its ratio to 0"
            )
        entry = config.sizes[size]
        for j, conflict in enumerate(conflict_slots(n, entry.wait_ratio)):
            spec = SlotSpec(size, config.n_agents, entry.hole_ratio, conflict, config.objective)
            key = key_seed("round", seed, size, config.n_agents, entry.hole_ratio, conflict, j)
            slots.append((spec, key, f"r{seed}-s{size}-i{j:05d}"))
    return slots


def generate(
    config: EnvConfig, seed: int, *, workers: int | None = None, progress: ProgressFn | None = None
) -> GeneratedRound:
    """Make a round's instances with optimal costs; deterministic in (config, seed)."""
    started = time.perf_counter()
    config = _checked_config(config)
    slots = round_slots(config, seed)
    workers = _worker_count(workers, len(slots))
    outcomes = list(fill_slots(slots, workers, progress))
    instances = tuple(o.instance for o in outcomes if o.instance is not None)
    stats = summarise(config, outcomes, time.perf_counter() - started, workers)
    return GeneratedRound(config=config, seed=seed, instances=instances, stats=stats)


def _checked_config(config: EnvConfig) -> EnvConfig:
    """`config` validated again, as a `ConfigError` with one line per bad field if it is not legal.

    `model_copy(update=...)` skips validation, so a config changed that way may hold the plain
    string "makespan" as its objective, or a value out of bounds. The string once made the
    solver minimise SOC and record that plan's makespan as the makespan optimum; the generator
    therefore works from, and records, the validated config. A legal config comes back equal
    to itself, so rounds stay byte-identical.
    """
    data = {**dict(config), "sizes": {s: dict(c) for s, c in config.sizes.items()}}
    return EnvConfig.from_mapping(data, "EnvConfig")


Slot = tuple[SlotSpec, int, str]
"""(spec, slot seed, instance id)."""


def fill_slots(
    slots: Sequence[Slot],
    workers: int,
    progress: ProgressFn | None = None,
    skips: Mapping[str, Sequence[int]] | None = None,
) -> Iterator[SlotOutcome]:
    """Sample every slot, in order, over `workers` processes (in-process when 1).

    `skips` maps an instance id to attempts to treat as solver limits (see `sample_slot`).
    """
    jobs = [(spec, key, name, frozenset((skips or {}).get(name, ()))) for spec, key, name in slots]
    total = len(jobs)
    if workers <= 1:
        for done, job in enumerate(jobs, 1):
            yield sample_slot(*job)
            if progress:
                progress(done, total)
        return
    chunks = [jobs[i : i + _CHUNK] for i in range(0, total, _CHUNK)]
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["mapf_env.sampler"])
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        done = 0
        for batch in pool.map(_fill_chunk, chunks):
            yield from batch
            done += len(batch)
            if progress:
                progress(done, total)


def _fill_chunk(chunk: Sequence[tuple[SlotSpec, int, str, frozenset[int]]]) -> list[SlotOutcome]:
    return [sample_slot(*job) for job in chunk]


def default_workers() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _worker_count(workers: int | None, n_slots: int) -> int:
    if workers is None:
        workers = default_workers()
    if n_slots < _PARALLEL_FROM:
        return 1
    return max(1, workers)


def summarise(
    config: EnvConfig, outcomes: Sequence[SlotOutcome], seconds: float, workers: int
) -> GenerationStats:
    by_size: dict[int, list[SlotOutcome]] = {s: [] for s in config.sizes}
    for o in outcomes:
        by_size[o.spec.size].append(o)
    sizes = {s: _size_stats(config, s, group) for s, group in by_size.items()}
    total = sum(st.generated for st in sizes.values())
    return GenerationStats(sizes=sizes, total=total, seconds=round(seconds, 3), workers=workers)


def _size_stats(config: EnvConfig, size: int, group: list[SlotOutcome]) -> SizeStats:
    entry = config.sizes[size]
    made = [o for o in group if o.instance is not None]
    cells = size * size
    optima = [o.instance.optimum for o in made if o.instance and o.instance.optimum]
    target_holes = [round(entry.hole_ratio * cells) for _ in made]
    rejections: Counter[str] = Counter()
    for o in group:
        rejections.update(o.rejections)
    return SizeStats(
        size=size,
        requested=len(group),
        generated=len(made),
        target_hole_ratio=entry.hole_ratio,
        hole_ratio=_mean([o.holes / cells for o in made]),
        dead_cell_ratio=_mean([o.dead_cells / cells for o in made]),
        target_wait_ratio=entry.wait_ratio,
        wait_ratio=_mean([float(bool(op.needs_conflict_resolution)) for op in optima]),
        kind_shortfall=sum(not o.kind_met for o in group),
        hole_relief=sum(o.holes < t for o, t in zip(made, target_holes, strict=True)),
        crossing_placements=sum(o.used_crossing for o in made),
        attempts=sum(o.attempts for o in group),
        rejections=dict(sorted(rejections.items())),
        mean_optimal_cost=_mean([float(op.cost) for op in optima]),
    )


def _mean(values: Sequence[float]) -> float:
    return round(sum(values) / len(values), 6) if values else 0.0


__all__ = [
    "GeneratedRound",
    "GenerationStats",
    "SizeStats",
    "conflict_slots",
    "generate",
    "round_slots",
    "size_counts",
]
