"""Speed of the exact solver, side by side with a textbook CBS and w9-pathfinding's C++ CBS.

    python benchmarks/bench_solver.py [--quick] [--suites | --makespan]
    (--suites: the suites table only; --makespan: the suites' exact makespan minima only)

For each agent count (2..5) and grid size (3..10) it samples seeded random instances that need
conflict resolution (random holes at 10-50 %, random distinct starts and goals, every agent able
to reach its goal, no conflict-free combination of shortest paths) and drops the ones our solver
proves unsolvable. Each instance is then solved by `mapf_env.solver.solve`, by
`benchmarks/reference_cbs.py`, and by w9's CBS (if `w9-pathfinding==0.1.3` is installed;
`pip install w9-pathfinding==0.1.3`, built from source). All three get the same time limit;
a miss counts as a timeout. Where w9 returns a plan its SOC must equal ours (mismatches are
reported). `solver_section(console, quick)` is the entry point for other benchmark scripts.

A second table times ours and w9 on the shipped benchmark suites (`load_suite`, answer key
stripped), per suite and size: median and p99 ms, instances per second (count over total time,
so the slow tail counts), the ratio w9-time/ours (median and total) and SOC mismatches against
the shipped optimum (wherever a solver returns a plan, its SOC must equal `optimum.cost`).

A third table (`makespan_section`) times the two exact makespan engines on the suites'
instances that need conflict resolution (the others' minimal makespan is their longest shortest
path): the time-expanded flow the suites' answer keys come from (`exact_makespan`) against CBS
under makespan (`solve(..., Objective.MAKESPAN)`) with the same time limit, the share CBS
settles within `minimal_makespan`'s node budget (the rest go to the flow when the suites are
built), and counts where either disagrees with the shipped `min_makespan`.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path as FsPath

from rich.console import Console
from rich.table import Table

from mapf_env import BenchmarkItem, Instance, Objective, Plan, load_suite, sum_of_costs
from mapf_env.solver import (
    MAKESPAN_CBS_NODES,
    SolverLimits,
    SolveStatus,
    conflict_free_plan,
    exact_makespan,
    individual_costs,
    solve,
)

sys.path.insert(0, str(FsPath(__file__).resolve().parent))
from bench_console import bench_console
from reference_cbs import reference_cbs

Runner = Callable[[Instance, float], "Plan | None"]


def sample_instances(n: int, k: int, count: int, seed: int) -> list[Instance]:
    """Seeded random instances with conflicts; at most 200 draws per wanted instance."""
    rng = random.Random(seed * 1_000_003 + n * 101 + k)
    cells = [(r, c) for r in range(n) for c in range(n)]
    out: list[Instance] = []
    for _ in range(count * 200):
        if len(out) == count:
            break
        holes = min(round(rng.uniform(0.1, 0.5) * n * n), n * n - 2 * k)
        if holes < 0:
            break
        hole = set(rng.sample(cells, holes))
        free = [c for c in cells if c not in hole]
        picks = rng.sample(free, 2 * k)
        grid = tuple("".join("H" if (r, c) in hole else "." for c in range(n)) for r in range(n))
        inst = Instance(grid=grid, starts=tuple(picks[:k]), goals=tuple(picks[k:]))
        if individual_costs(inst) is not None and conflict_free_plan(inst) is None:
            out.append(inst)
    return out


@dataclass
class Column:
    """Timings of one solver over one (agents, size) cell of the table."""

    times: list[float] = field(default_factory=list)
    timeouts: int = 0

    def add(self, seconds: float, ok: bool) -> None:
        self.times.append(seconds)
        self.timeouts += 0 if ok else 1

    def median_ms(self) -> float:
        return 1000 * statistics.median(self.times) if self.times else float("nan")

    def p99_ms(self) -> float:
        if not self.times:
            return float("nan")
        ordered = sorted(self.times)
        return 1000 * ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]

    def per_second(self) -> float:
        total = sum(self.times)
        return len(self.times) / total if total > 0 else float("nan")


def _w9_runner() -> Runner | None:
    try:
        from w9_pathfinding.envs import Grid  # type: ignore[import-untyped]
        from w9_pathfinding.mapf import CBS  # type: ignore[import-untyped]
    except ImportError:
        return None

    def run(inst: Instance, limit: float) -> Plan | None:
        weights = [[-1 if ch == "H" else 1 for ch in row] for row in inst.grid]
        env = Grid(weights, edge_collision=True)  # swaps are conflicts in our rules
        starts = [(c, r) for r, c in inst.starts]  # w9 uses (x, y) = (col, row)
        goals = [(c, r) for r, c in inst.goals]
        try:
            paths = CBS(env, seed=0).mapf(starts, goals, max_length=200, max_time=limit)
        except RuntimeError:  # w9 raises on its time limit
            return None
        if not paths:
            return None
        return tuple(tuple((r, c) for c, r in p) for p in paths)

    return run


def _timed(runner: Runner, inst: Instance, limit: float) -> tuple[float, Plan | None]:
    start = time.perf_counter()
    plan = runner(inst, limit)
    return time.perf_counter() - start, plan


def _ours(inst: Instance, limit: float) -> Plan | None:
    res = solve(inst, limits=SolverLimits(time_limit_s=limit))
    return res.plan if res.status is SolveStatus.OPTIMAL else None


def _reference(inst: Instance, limit: float) -> Plan | None:
    return reference_cbs(inst, time_limit_s=limit)


def solver_section(console: Console, quick: bool) -> None:
    """Print the solver benchmark table (the `--quick` grid is smaller and shorter)."""
    agents = (2, 3, 5) if quick else (2, 3, 4, 5)
    sizes = (3, 6, 10) if quick else tuple(range(3, 11))
    count, limit = (10, 1.0) if quick else (30, 2.0)
    w9 = _w9_runner()
    if w9 is None:
        console.print(
            "[yellow]w9-pathfinding not installed: its column is skipped "
            "(pip install w9-pathfinding==0.1.3)[/yellow]"
        )
    table = Table(title=f"Exact SOC solver, {count} instances per row, limit {limit:g} s")
    for name in (
        "agents",
        "size",
        "n",
        "ours med ms",
        "ours p99 ms",
        "ours t/o",
        "ref med ms",
        "ref t/o",
        "ref/ours",
        "w9 med ms",
        "w9 t/o",
        "w9/ours",
        "ours inst/s",
        "w9 inst/s",
        "SOC mismatch",
    ):
        table.add_column(name, justify="right", no_wrap=True)
    for k in agents:
        for n in sizes:
            row = _measure(n, k, count, limit, w9)
            if row is not None:
                table.add_row(str(k), f"{n}x{n}", *row)
    console.print(table)
    suites_section(console, quick)


def suites_section(console: Console, quick: bool) -> None:
    """Ours vs w9 on the shipped suites (`--quick`: 10x10 only, 50 instances per row)."""
    limit = 2.0
    w9 = _w9_runner()
    table = Table(title=f"Shipped suites (answer key stripped), limit {limit:g} s")
    for name in (
        "suite", "size", "n", "ours med ms", "ours p99 ms", "ours inst/s", "ours t/o",
        "w9 med ms", "w9 p99 ms", "w9 inst/s", "w9 t/o", "w9/ours med", "w9/ours total",
        "SOC mismatch",
    ):  # fmt: skip
        table.add_column(name, justify="right", no_wrap=True)
    for suite in ("3agents", "4agents", "5agents"):
        items = load_suite(suite).items
        for n in sorted({it.size for it in items}):
            if quick and n != 10:
                continue
            rows = [it for it in items if it.size == n][:: 3 if quick else 1]
            table.add_row(suite, f"{n}x{n}", *_measure_suite(rows, limit, w9))
    console.print(table)


def _measure_suite(items: list[BenchmarkItem], limit: float, w9: Runner | None) -> list[str]:
    cols = {"ours": Column(), "w9": Column()}
    mismatches = 0
    for item in items:
        assert item.instance.optimum is not None
        inst, want = item.instance.without_optimum(), item.instance.optimum.cost
        for name, runner in (("ours", _ours), ("w9", w9)):
            if runner is None:
                continue
            secs, plan = _timed(runner, inst, limit)
            cols[name].add(secs, plan is not None)
            mismatches += plan is not None and sum_of_costs(plan) != want
    ours, w9c = cols["ours"], cols["w9"]
    have = bool(w9c.times)

    def fmt(col: Column, value: float, spec: str) -> str:
        return format(value, spec) if col.times else "-"

    return [
        str(len(items)), f"{ours.median_ms():.2f}", f"{ours.p99_ms():.1f}",
        f"{ours.per_second():.0f}", str(ours.timeouts),
        fmt(w9c, w9c.median_ms(), ".2f"), fmt(w9c, w9c.p99_ms(), ".1f"),
        fmt(w9c, w9c.per_second(), ".0f"), str(w9c.timeouts) if have else "-",
        f"{w9c.median_ms() / ours.median_ms():.2f}x" if have else "-",
        f"{ours.per_second() / w9c.per_second():.2f}x" if have else "-",
        str(mismatches),
    ]  # fmt: skip


def _measure(n: int, k: int, count: int, limit: float, w9: Runner | None) -> list[str] | None:
    instances = sample_instances(n, k, count, seed=0)
    cols = {"ours": Column(), "ref": Column(), "w9": Column()}
    mismatches = kept = 0
    for inst in instances:
        res = solve(inst, limits=SolverLimits(time_limit_s=limit))
        if res.status is SolveStatus.UNSOLVABLE:
            continue
        kept += 1
        cols["ours"].add(res.seconds, res.status is SolveStatus.OPTIMAL)
        secs, plan = _timed(_reference, inst, limit)
        cols["ref"].add(secs, plan is not None)
        if w9 is not None:
            secs, plan = _timed(w9, inst, limit)
            cols["w9"].add(secs, plan is not None)
            if plan is not None and res.plan is not None:
                mismatches += sum_of_costs(plan) != res.cost
    if not kept:
        return None
    ours, ref, w9c = cols["ours"], cols["ref"], cols["w9"]
    ratio = f"{ref.median_ms() / ours.median_ms():.1f}x"
    w9_ratio = f"{w9c.median_ms() / ours.median_ms():.2f}x" if w9c.times else "-"
    return [
        str(kept), f"{ours.median_ms():.2f}", f"{ours.p99_ms():.1f}", str(ours.timeouts),
        f"{ref.median_ms():.2f}", str(ref.timeouts), ratio,
        f"{w9c.median_ms():.2f}" if w9c.times else "-", str(w9c.timeouts) if w9c.times else "-",
        w9_ratio, f"{ours.per_second():.0f}",
        f"{w9c.per_second():.0f}" if w9c.times else "-",
        str(mismatches) if w9c.times else "-",
    ]  # fmt: skip


def makespan_section(console: Console, quick: bool) -> None:
    """Flow vs CBS under makespan on each suite's conflict instances (`--quick`: every 10th)."""
    limit = 5.0 if quick else 20.0
    table = Table(title=f"Exact minimal makespan on the shipped suites, limit {limit:g} s")
    for name in ("suite", "n", "flow med ms", "flow p99 ms", "flow total s", "flow t/o",
                 "CBS med ms", "CBS p99 ms", "CBS total s", "CBS t/o", "CBS/flow total",
                 f"CBS <= {MAKESPAN_CBS_NODES:,} nodes", "mismatch"):  # fmt: skip
        table.add_column(name, justify="right", no_wrap=True)
    for suite in ("validation", "3agents", "4agents", "5agents"):
        items = [it for it in load_suite(suite).items if _needs_resolution(it)]
        table.add_row(suite, *_measure_makespan(items[:: 10 if quick else 1], limit))
    console.print(table)


def _needs_resolution(item: BenchmarkItem) -> bool:
    return bool(item.instance.optimum and item.instance.optimum.needs_conflict_resolution)


def _measure_makespan(items: list[BenchmarkItem], limit: float) -> list[str]:
    flow, cbs, mismatches, within = Column(), Column(), 0, 0
    for item in items:
        key = item.instance.optimum
        assert key is not None
        inst = item.instance.without_optimum()
        started = time.perf_counter()
        value, _ = exact_makespan(inst, key.makespan)
        flow.add(time.perf_counter() - started, True)
        res = solve(inst, Objective.MAKESPAN, SolverLimits(max_nodes=10**9, time_limit_s=limit))
        cbs.add(res.seconds, res.status is SolveStatus.OPTIMAL)
        within += res.status is SolveStatus.OPTIMAL and res.nodes <= MAKESPAN_CBS_NODES
        mismatches += value != key.min_makespan or (res.cost is not None and res.cost != value)
    return [
        str(len(items)), f"{flow.median_ms():.1f}", f"{flow.p99_ms():.0f}",
        f"{sum(flow.times):.1f}", str(flow.timeouts), f"{cbs.median_ms():.1f}",
        f"{cbs.p99_ms():.0f}", f"{sum(cbs.times):.1f}", str(cbs.timeouts),
        f"{sum(cbs.times) / sum(flow.times):.2f}x", f"{within / len(items):.1%}",
        str(mismatches),
    ]  # fmt: skip


if __name__ == "__main__":
    console = bench_console()
    if "--makespan" in sys.argv[1:]:
        makespan_section(console, quick="--quick" in sys.argv[1:])
    elif "--suites" in sys.argv[1:]:
        suites_section(console, quick="--quick" in sys.argv[1:])
    else:
        solver_section(console, quick="--quick" in sys.argv[1:])
