"""How fast the testbed is: generation, exact solving, and scoring, measured side by side.

    python benchmarks/bench_env.py            # full run (several minutes on 2 cores)
    python benchmarks/bench_env.py --quick    # smaller samples, same tables

Targets on a 2-core machine (from the testbed issue):

- a round of 4000 two-agent instances with optimal costs and conflict targeting in <= 5 s for
  the paper's kind of mix (a seeded random round-0 config), <= 20 s for the worst case (75%
  conflict instances on hole-free 10x10 maps);
- the solver at least half of w9-pathfinding's C++ CBS throughput on 5 agents at 10x10;
- verify + reward >= 20,000 responses/s on one core.

Every table prints a ratio against a reference measured in the same run, so the figures can be
compared across machines: generation against plain rejection sampling (no placement across
paths), the solver against a textbook CBS and w9's CBS, scoring against ``json.dumps``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from unittest import mock

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_console import bench_console
from bench_scoring import scoring_section
from bench_solver import solver_section

from mapf_env import SIZES, EnvConfig, SizeConfig, random_config
from mapf_env import sampler as sampler_module
from mapf_env.generator import generate
from mapf_env.suites import SUITES, build_suite


def worst_case(samples: int) -> EnvConfig:
    """Everything on hole-free 10x10 maps with 75% conflict instances."""
    sizes = {s: SizeConfig(ratio=float(s == 10), hole_ratio=0.0, wait_ratio=0.75) for s in SIZES}
    return EnvConfig(sizes=sizes, samples=samples)


def _time_round(config: EnvConfig, workers: int, rejection_only: bool = False) -> float:
    never = mock.patch.object(sampler_module, "CROSSING_FROM", 10**9)
    started = time.perf_counter()
    if rejection_only:
        with never:
            generate(config, seed=0, workers=workers)
    else:
        generate(config, seed=0, workers=workers)
    return time.perf_counter() - started


def generation_section(console: Console, quick: bool) -> None:
    cores = len(os.sched_getaffinity(0))
    samples = 1000 if quick else 4000
    ref_samples = 200 if quick else 400
    table = Table(title=f"Generation with optimal costs ({cores} cores)")
    for name in ("round", "instances", "seconds", "inst/s", "4000 in", "target", "vs rejection"):
        table.add_column(name, justify="right")
    for label, config, target in (
        ("paper-style mix (random_config(0))", random_config(0), 5.0),
        ("worst: 10x10, no holes, 75% conflicts", worst_case(samples), 20.0),
    ):
        config = config.model_copy(update={"samples": samples})
        seconds = _time_round(config, cores)
        small = config.model_copy(update={"samples": ref_samples})
        ours_small = _time_round(small, 1)
        naive_small = _time_round(small, 1, rejection_only=True)
        per_4000 = seconds * 4000 / samples
        table.add_row(
            label, str(samples), f"{seconds:.2f}", f"{samples / seconds:,.0f}",
            f"{per_4000:.1f} s", f"<= {target:.0f} s {'ok' if per_4000 <= target else 'MISSED'}",
            f"{naive_small / ours_small:.2f}x",
        )  # fmt: skip
    console.print(table)
    console.print(
        "[dim]vs rejection: time of plain rejection sampling / ours, one core, "
        f"{ref_samples} instances of the same config.[/]"
    )
    suites_table = Table(title="Benchmark suites rebuilt from their seeds")
    for name in ("suite", "instances", "seconds", "inst/s"):
        suites_table.add_column(name, justify="right")
    for name, spec in SUITES.items():
        if quick:  # one size per suite: the largest, the slowest
            spec = type(spec)(spec.name, spec.n_agents, spec.sizes[-1:], spec.wait_ratios)
        started = time.perf_counter()
        items = build_suite(spec, workers=cores).items
        seconds = time.perf_counter() - started
        shown = name + (" (10x10 only)" if quick else "")
        suites_table.add_row(
            shown, str(len(items)), f"{seconds:.1f}", f"{len(items) / seconds:,.0f}"
        )
    console.print(suites_table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller samples")
    parser.add_argument(
        "--only", choices=("generation", "solver", "scoring"), help="run one section"
    )
    args = parser.parse_args()
    console = bench_console()
    sections = {
        "generation": generation_section,
        "solver": solver_section,
        "scoring": scoring_section,
    }
    for name, section in sections.items():
        if args.only in (None, name):
            section(console, args.quick)


if __name__ == "__main__":
    main()
