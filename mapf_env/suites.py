"""The fixed benchmark suites: specification, building, shipping with checksums, loading.

Suites are the yardstick every designer's final policy is measured on, so they never change
silently. Each is built from fixed seeds by `build_suite`, shipped inside the package as gzipped
JSON lines, and described in `manifest.json` with two checksums:

- `file_sha256` covers the shipped file byte for byte and is checked on every load;
- `content_sha256` covers what defines the benchmark -- grids, agents, both exact optima,
  subsets -- but not the reference plans (nor their own SOC / makespan), whose tie-breaking may
  differ between correct solvers. A test rebuilds every suite and compares this checksum.

Versions: `SUITE_VERSION` (2) keys every instance with both exact minima, the SOC one and the
makespan one from its own makespan solve, because the paper's optimal rate is makespan-optimal.
Its instances (grids, starts, goals, subsets) come from the slot seeds of `SEED_VERSION`, and
the manifest's `instances_sha256`, computed without either minimum, checks them apart from
their answer keys. `OPTIMA` names what a version's answer keys hold (version 1's held the
minimal SOC only), so a record says which optimal rate it can report.

Layout (docs/tasks/mapf-frozenlake.md): 3-agent on sizes 3..10, 4-agent on 4..10, 5-agent on
5..10; 150 instances per size, in wait-ratio subsets wr_025 / wr_050 / wr_075 of 50, each with
the hole ratios 0.1..0.5 in consecutive blocks of 10. The 2-agent validation set has 50 per size
3..10, one subset wr_050, with the same hole blocks. `validation-multi` mixes the benchmarks'
three agent counts on their sizes, 10 per (agents, size, subset) in hole blocks of 2, and
shares no puzzle with them (`mapf_env.overlap`, checked by every build).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import multiprocessing
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path as FsPath
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from envdesign_common import atomic_write_bytes
from envdesign_common.seeds import key_seed
from mapf_env.generator import conflict_slots, fill_slots
from mapf_env.instance import Instance, Objective
from mapf_env.overlap import check_disjoint
from mapf_env.paths import plan_cost
from mapf_env.sampler import SlotSpec
from mapf_env.solver import SolveResult, SolverLimits, find_optimum, minimal_makespan

SUITE_VERSION = 2
SEED_VERSION = 1
"""The suite version whose slot seeds make the instances: version 2 keys the instances of
version 1's seeds with both exact minima."""
OPTIMA: dict[int, tuple[Objective, ...]] = {
    1: (Objective.SOC,),
    2: (Objective.SOC, Objective.MAKESPAN),
}
"""The exact optima each suite version's answer keys carry."""
MINIMUM_LIMITS = SolverLimits(max_nodes=50_000_000, time_limit_s=600.0)
"""The second objective's solve of a suite instance must finish (the instance is fixed, so a
limit cannot be a rejection): generous limits for a SOC solve of a makespan-keyed suite. The
shipped suites are SOC-keyed; their makespan minima come from `minimal_makespan` (CBS, or
the exact flow where CBS stalls: on two dense 5-agent instances it spent 20 million nodes
without an answer)."""
HOLE_RATIOS = (0.1, 0.2, 0.3, 0.4, 0.5)
DATA_PACKAGE = "mapf_env.data.benchmarks"
MANIFEST = "manifest.json"


@dataclass(frozen=True)
class SuiteSpec:
    """A shipped suite's layout: agents, sizes, wait subsets and hole blocks, seeded by `name`.

    A suite has `n_agents` agents on `sizes`; one that mixes agent counts adds
    `more_agents`, each (agents, sizes) a further part with the same subsets, so that one
    suite can stand for the 3-, 4- and 5-agent benchmarks at once (`validation-multi`).
    `disjoint_from` names the suites it must share no puzzle with (`puzzle_key`).
    """

    name: str
    n_agents: int
    sizes: tuple[int, ...]
    wait_ratios: tuple[float, ...]
    per_subset: int = 50
    hole_ratios: tuple[float, ...] = HOLE_RATIOS
    more_agents: tuple[tuple[int, tuple[int, ...]], ...] = ()
    disjoint_from: tuple[str, ...] = ()

    @property
    def per_size(self) -> int:
        """Instances per (agent count, size)."""
        return self.per_subset * len(self.wait_ratios)

    @property
    def parts(self) -> tuple[tuple[int, tuple[int, ...]], ...]:
        """Every (agent count, its sizes), the first `n_agents` on `sizes`."""
        return ((self.n_agents, self.sizes), *self.more_agents)

    @property
    def mixed(self) -> bool:
        """Whether the suite's instances have more than one agent count."""
        return bool(self.more_agents)

    @property
    def all_sizes(self) -> tuple[int, ...]:
        """The sizes any part covers, ascending."""
        return tuple(sorted({size for _, sizes in self.parts for size in sizes}))


WAIT_SUBSETS = (0.25, 0.5, 0.75)
"""The benchmarks' wait ratios, one subset each."""
BENCHMARK_SUITES = ("3agents", "4agents", "5agents")
"""The paper's benchmarks, every final policy's default test (the validation suites are not)."""
SUITES: dict[str, SuiteSpec] = {
    "3agents": SuiteSpec("3agents", 3, tuple(range(3, 11)), WAIT_SUBSETS),
    "4agents": SuiteSpec("4agents", 4, tuple(range(4, 11)), WAIT_SUBSETS),
    "5agents": SuiteSpec("5agents", 5, tuple(range(5, 11)), WAIT_SUBSETS),
    "validation": SuiteSpec("validation", 2, tuple(range(3, 11)), (0.5,)),
    "validation-multi": SuiteSpec(
        name="validation-multi",
        n_agents=3,
        sizes=tuple(range(3, 11)),
        wait_ratios=WAIT_SUBSETS,
        per_subset=10,
        more_agents=((4, tuple(range(4, 11))), (5, tuple(range(5, 11)))),
        disjoint_from=BENCHMARK_SUITES,
    ),
}
"""Every shipped suite by name. `validation-multi` is the benchmarks' layout at a fifth of
their size (10 per agent count, size and subset; 630 instances), disjoint from them: a
validation signal on the agent counts the benchmarks score, which the 2-agent `validation`
may rank training distributions otherwise than."""


def subset_name(wait_ratio: float) -> str:
    return f"wr_{round(wait_ratio * 100):03d}"


class BenchmarkItem(BaseModel):
    """One benchmark instance and the cell of the tables it counts in."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    suite: str
    size: int
    subset: str
    hole_ratio: float
    instance: Instance


class BenchmarkSuite(BaseModel):
    """A shipped suite as loaded: its items in suite order and the manifest's checksum."""

    model_config = ConfigDict(frozen=True)

    name: str
    version: int
    n_agents: int | None = Field(
        description="Agents of every instance; None for a suite that mixes agent counts."
    )
    items: tuple[BenchmarkItem, ...]
    content_sha256: str

    @property
    def agent_counts(self) -> tuple[int, ...]:
        """The agent counts its instances have, ascending."""
        return tuple(sorted({item.instance.n_agents for item in self.items}))

    @property
    def optima(self) -> tuple[Objective, ...]:
        """The exact optima every answer key of this suite carries."""
        return OPTIMA.get(self.version, (Objective.SOC,))


class SuiteChecksumError(RuntimeError):
    """A shipped suite file does not match its manifest: the package data is corrupted."""


SuiteSlot = tuple[SlotSpec, int, str, str]
"""One instance of a suite to fill: its slot spec, seed, instance id and wait subset."""


def suite_slots(spec: SuiteSpec, objective: Objective) -> list[SuiteSlot]:
    """Every slot of `spec`, sizes ascending, then subsets, then slot index, then agents.

    A slot's seed comes from the suite's name, size, wait ratio and index (and, in a suite
    that mixes agent counts, its agent count): the same for every build, whatever the order.
    The order serves `stratified`, which keeps the first items of each size/subset/hole cell
    (the task's cuts, which have no agent count): agent counts come innermost, and the first
    of them turns from cell to cell, so that a subset of a mixed suite holds every agent
    count in about its share instead of the fewest agents first.
    """
    slots = []
    block = spec.per_subset // len(spec.hole_ratios)
    for size in spec.all_sizes:
        counts = [k for k, sizes in spec.parts if size in sizes]
        for w, wait in enumerate(spec.wait_ratios):
            kinds = conflict_slots(spec.per_subset, wait)
            for j, conflict in enumerate(kinds):
                cell = min(j // block, len(spec.hole_ratios) - 1)
                hole = spec.hole_ratios[cell]
                turn = (size + w + cell) % len(counts)
                for k in counts[turn:] + counts[:turn]:
                    part = (k,) if spec.mixed else ()
                    key = key_seed(
                        "bench", spec.name, SEED_VERSION, *part, size, wait, j, objective.value
                    )
                    tag = f"-a{k}" if spec.mixed else ""
                    name = f"{spec.name}{tag}-s{size}-{subset_name(wait)}-i{j:02d}"
                    slot = SlotSpec(size, k, hole, conflict, objective)
                    slots.append((slot, key, name, subset_name(wait)))
    return slots


class BuiltSuite(BaseModel):
    """A freshly built suite and the attempts its build gave up on at the solver's node limit."""

    model_config = ConfigDict(frozen=True)

    items: tuple[BenchmarkItem, ...]
    limited: dict[str, list[int]]


def build_suite(
    spec: SuiteSpec,
    *,
    objective: Objective = Objective.SOC,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
    limited: Mapping[str, Sequence[int]] | None = None,
    others: Mapping[str, Sequence[BenchmarkItem]] | None = None,
) -> BuiltSuite:
    """Build a suite from its fixed seeds (deterministic; about a minute for 5 agents).

    `limited` replays a previous build's node-limit rejections (the manifest keeps them), so a
    rebuild reproduces the shipped suite with any exact solver at least as capable as the one
    that built it.

    A suite with `disjoint_from` is checked against those suites -- the ones in `others`
    (suites built beside it), else the shipped ones -- and the build fails loudly, before the
    second minima are solved, if it holds one of their puzzles (`SuiteOverlapError`). Failing,
    not redrawing: the seeds are fixed, so an overlap is a fact of the spec settled by its
    first build, and a redraw path would be code the shipped suites never run.
    """
    slots = suite_slots(spec, objective)
    instances: list[Instance] = []
    gave_up: dict[str, list[int]] = {}
    outcomes = fill_slots([slot[:3] for slot in slots], workers, progress, skips=limited)
    for (_, _, name, _), outcome in zip(slots, outcomes, strict=True):
        if outcome.instance is None:
            raise RuntimeError(f"benchmark slot {name} could not be filled")
        if outcome.limited:
            gave_up[name] = list(outcome.limited)
        instances.append(outcome.instance)
    if spec.disjoint_from:
        given = others or {}
        avoided = [given[n] if n in given else load_suite(n).items for n in spec.disjoint_from]
        check_disjoint(spec.name, instances, (item.instance for it in avoided for item in it))
    items = [
        BenchmarkItem(
            suite=spec.name,
            size=slot.size,
            subset=subset,
            hole_ratio=slot.hole_ratio,
            instance=instance,
        )
        for (slot, _, _, subset), instance in zip(
            slots, _with_both_minima(instances, workers), strict=True
        )
    ]
    return BuiltSuite(items=tuple(items), limited=gave_up)


def with_both_minima(instance: Instance) -> Instance:
    """`instance` with the exact minimum of every objective its answer key lacks.

    The instances are fixed once their slot is filled, so the second solve is not a sampling
    step that may reject: it must finish, under `MINIMUM_LIMITS`, or the build fails loudly.
    A plan of conflict-free shortest paths is optimal for both objectives at once (no agent
    can arrive sooner), so only instances that need conflict resolution are searched again.
    """
    optimum = instance.optimum
    if optimum is None:
        raise ValueError(f"instance {instance.id}: solve it before completing its optima")
    minima: dict[str, int] = {}
    for objective in Objective:
        if optimum.minimum(objective) is not None:
            continue
        if not optimum.needs_conflict_resolution:
            minima[f"min_{objective.value}"] = plan_cost(optimum.plan, objective)
            continue
        if objective is Objective.MAKESPAN:
            minima["min_makespan"] = minimal_makespan(instance, optimum.makespan)
            continue
        result = find_optimum(instance.without_optimum(), objective, MINIMUM_LIMITS)
        if isinstance(result, SolveResult):
            raise RuntimeError(
                f"instance {instance.id}: its exact {objective} minimum was not found "
                f"({result.status}: {result.reason}); raise MINIMUM_LIMITS"
            )
        minima[f"min_{objective.value}"] = result.cost
    completed = optimum.model_validate({**optimum.model_dump(), **minima})
    return instance.model_copy(update={"optimum": completed})


def _with_both_minima(instances: Sequence[Instance], workers: int) -> list[Instance]:
    if workers <= 1 or len(instances) < 2:
        return [with_both_minima(i) for i in instances]
    context = multiprocessing.get_context("forkserver")
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        return list(pool.map(with_both_minima, instances, chunksize=16))


PLAN_FIELDS = ("plan", "soc", "makespan")
"""Fields of an `Optimum` that describe its reference plan rather than the instance: another
equally optimal plan may have another makespan (under SOC) or SOC (under makespan)."""
MINIMUM_FIELDS = ("min_soc", "min_makespan")
"""Fields of an `Optimum` that hold the two exact minima (version 2's answer keys have them,
version 1's had neither)."""


def content_sha256(items: Sequence[BenchmarkItem], *, minima: bool = True) -> str:
    """Checksum of what defines the benchmark: everything but the reference plan's own fields.

    The optimal cost, both minima, the individual costs and the conflict flag are facts of the
    instance and stay in; `PLAN_FIELDS` depend on which optimal plan a solver happened to
    return. With ``minima=False`` the version-2 minima are left out too: the checksum of the
    instances alone, which equals version 1's content checksum for the same instances.
    """
    dropped = PLAN_FIELDS if minima else PLAN_FIELDS + MINIMUM_FIELDS
    digest = hashlib.sha256()
    for item in items:
        data = item.model_dump(mode="json")
        optimum = data["instance"].get("optimum") or {}
        for field in dropped:
            optimum.pop(field, None)
        digest.update(json.dumps(data, sort_keys=True, separators=(",", ":")).encode())
        digest.update(b"\n")
    return digest.hexdigest()


def encode_suite(items: Sequence[BenchmarkItem]) -> bytes:
    """Gzipped JSON lines, byte-identical for identical items (no timestamp in the header)."""
    raw = "".join(item.model_dump_json() + "\n" for item in items).encode()
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, compresslevel=9) as gz:
        gz.write(raw)
    return buffer.getvalue()


def write_suites(out_dir: str | FsPath, suites: Mapping[str, BuiltSuite]) -> dict[str, Any]:
    """Write suite files and their manifest (the form shipped in the package)."""
    out = FsPath(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, Any] = {"version": SUITE_VERSION, "suites": {}}
    previous = out / MANIFEST
    if previous.is_file():  # rebuilding some suites keeps the others' entries
        kept = json.loads(previous.read_text(encoding="utf-8"))
        if kept.get("version") == SUITE_VERSION:
            manifest["suites"].update(kept.get("suites", {}))
    for name, built in sorted(suites.items()):
        items = built.items
        blob = encode_suite(items)
        atomic_write_bytes(out / f"{name}.jsonl.gz", blob)
        spec = SUITES[name]
        manifest["suites"][name] = {
            "file": f"{name}.jsonl.gz",
            "n_agents": None if spec.mixed else spec.n_agents,
            "sizes": list(spec.all_sizes),
            **({"agents": {str(k): list(s) for k, s in spec.parts}} if spec.mixed else {}),
            "count": len(items),
            "file_sha256": hashlib.sha256(blob).hexdigest(),
            "content_sha256": content_sha256(items),
            "instances_sha256": content_sha256(items, minima=False),
            "optima": [objective.value for objective in OPTIMA[SUITE_VERSION]],
            "limited": built.limited,
        }
    atomic_write_bytes(out / MANIFEST, (json.dumps(manifest, indent=2) + "\n").encode())
    return manifest


def _source(root: FsPath | None, name: str) -> Traversable:
    return FsPath(root) / name if root is not None else resources.files(DATA_PACKAGE) / name


def load_manifest(root: FsPath | None = None) -> dict[str, Any]:
    """The manifest of the shipped suites, or of the suites under `root` (as written by
    `write_suites`)."""
    source = _source(root, MANIFEST)
    if not source.is_file():
        raise FileNotFoundError(
            f"no benchmark suites at {root or DATA_PACKAGE}; reinstall the package or "
            "rebuild them with `harness env bench-build`"
        )
    manifest: dict[str, Any] = json.loads(source.read_text(encoding="utf-8"))
    return manifest


def available_suites(root: FsPath | None = None) -> list[str]:
    return sorted(load_manifest(root)["suites"])


def load_suite(name: str, root: FsPath | None = None) -> BenchmarkSuite:
    """A suite by name, shipped (or under `root`), its file checked against the manifest.

    Shipped suites are read once per process; suites under `root` are read on every call.
    """
    return _shipped_suite(name) if root is None else _read_suite(name, root)


@cache
def _shipped_suite(name: str) -> BenchmarkSuite:
    return _read_suite(name, None)


def _read_suite(name: str, root: FsPath | None) -> BenchmarkSuite:
    manifest = load_manifest(root)
    entry = manifest["suites"].get(name)
    if entry is None:
        known = ", ".join(available_suites(root))
        raise KeyError(f"no benchmark suite {name!r}; available: {known}")
    blob = _source(root, entry["file"]).read_bytes()
    if hashlib.sha256(blob).hexdigest() != entry["file_sha256"]:
        raise SuiteChecksumError(
            f"{entry['file']} does not match manifest.json (corrupted); reinstall the package"
        )
    lines = gzip.decompress(blob).decode().splitlines()
    items = tuple(BenchmarkItem.model_validate_json(line) for line in lines)
    return BenchmarkSuite(
        name=name,
        version=manifest["version"],
        n_agents=entry["n_agents"],
        items=items,
        content_sha256=entry["content_sha256"],
    )
