"""Throughput of answer scoring: parse, verify, and verify + reward, on one core.

GRPO scores every rollout (4000 prompts x 8 rollouts a round in the paper), so scoring must never
be what the trainer waits on. The target is 20,000 responses/s on one core for verify + reward.
Figures are measured side by side in one run against a reference of the same volume
(``json.dumps`` of each response, the least work any logging of a response does), so the
ratios hold across machines even when the absolute figures do not.

The mix is a fixed, seeded set of responses to a 3x3 two-agent instance and a 10x10 five-agent
instance: optimal, suboptimal, each failure type, prose, empty replies and responses with a
long ``<think>`` block, in roughly the shares a policy early in training produces.

Run alone: ``python benchmarks/bench_scoring.py [--quick]``.
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Callable

from bench_console import bench_console
from rich.console import Console
from rich.table import Table

from mapf_env.instance import Cell, Instance, Objective, Optimum, Path, Plan
from mapf_env.parser import parse
from mapf_env.prompt import format_plan
from mapf_env.reward import reward
from mapf_env.verifier import verify

TARGET_PER_S = 20_000


def _ring() -> tuple[Instance, Plan]:
    top: Path = ((0, 0), (0, 1), (0, 2))
    around: Path = ((0, 2), (1, 2), (2, 2), (2, 1), (2, 0), (1, 0), (0, 0))
    optimum = Optimum(
        objective=Objective.SOC, cost=8, soc=8, makespan=6, individual=(2, 2),
        needs_conflict_resolution=True, plan=(top, around),
    )  # fmt: skip
    grid = ("...", ".H.", "...")
    return Instance(grid=grid, starts=((0, 0), (0, 2)), goals=((0, 2), (0, 0)), optimum=optimum), (
        top,
        around,
    )


def _lanes() -> tuple[Instance, Plan]:
    """10x10, five agents crossing on even rows, holes on odd rows: optimal SOC 45."""
    n, k = 10, 5
    grid = tuple(
        "".join("H" if r % 2 and (c * 7 + r) % 3 == 0 else "." for c in range(n)) for r in range(n)
    )
    plan: Plan = tuple(tuple((2 * i, c) for c in range(n)) for i in range(k))
    optimum = Optimum(
        objective=Objective.SOC, cost=45, soc=45, makespan=9, individual=(9,) * k,
        needs_conflict_resolution=False, plan=plan,
    )  # fmt: skip
    starts = tuple(p[0] for p in plan)
    goals = tuple(p[-1] for p in plan)
    return Instance(grid=grid, starts=starts, goals=goals, optimum=optimum), plan


def _variants(instance: Instance, plan: Plan, rng: random.Random) -> list[str]:
    """One response per outcome, some wrapped in reasoning, for `instance`."""
    first = plan[0]
    waited: Path = (first[0], *first)
    out_of_grid: Cell = (first[0][0], -1)
    hole = next(iter(instance.holes))
    bad_plans: list[Plan] = [
        plan,
        (waited, *plan[1:]),
        (first[1:], *plan[1:]),
        ((first[0], out_of_grid, *first), *plan[1:]),
        ((first[0], hole), *plan[1:]),
        ((first[0], first[-1]), *plan[1:]),
        (plan[1], plan[1], *plan[2:]) if len(plan) > 2 else (plan[0], plan[0]),
        (first[:-1], *plan[1:]),
        plan[:-1],
    ]
    answers = [format_plan(p) for p in bad_plans]
    think = " ".join(
        rng.choice(["move", "right", "(1,2)", "wait", "Agent", "conflict"]) for _ in range(600)
    )
    answers += [
        f"<think>{think}</think>\n{answers[0]}",
        f"<think>{think}</think>\n**Final answer**\n```\n{answers[1]}\n```",
        f"<think>{think}",  # ran out of tokens
        "I cannot solve this.",
        "",
        answers[0].replace(") (", ") WAIT (", 1),
    ]
    return answers


def _mix(rng: random.Random) -> list[tuple[Instance, str]]:
    pairs = []
    for instance, plan in (_ring(), _lanes()):
        pairs += [(instance, text) for text in _variants(instance, plan, rng)]
    rng.shuffle(pairs)
    return pairs


def _rate(
    fn: Callable[[Instance, str], object], pairs: list[tuple[Instance, str]], reps: int
) -> float:
    """Best-of-3 responses per second of `fn` over `reps` passes of `pairs`."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(reps):
            for instance, text in pairs:
                fn(instance, text)
        best = min(best, time.perf_counter() - start)
    return reps * len(pairs) / best


def scoring_section(console: Console, quick: bool) -> None:
    """Print a table of scoring throughput next to its same-run reference."""
    pairs = _mix(random.Random(0))
    reps = 20 if quick else 200
    stages: list[tuple[str, Callable[[Instance, str], object]]] = [
        ("reference: json.dumps(response)", lambda _i, t: json.dumps(t)),
        ("parse", lambda i, t: parse(t, i.n_agents)),
        ("verify", verify),
        ("verify + reward", reward),
        ("verify + reward + as_dict", lambda i, t: reward(i, t).as_dict()),
    ]
    rates = {name: _rate(fn, pairs, reps) for name, fn in stages}
    reference = rates[stages[0][0]]
    mean_chars = sum(len(t) for _, t in pairs) / len(pairs)
    table = Table(
        title=f"Scoring throughput, one core ({len(pairs)} responses x {reps}, "
        f"mean {mean_chars:.0f} chars; target {TARGET_PER_S:,}/s for verify + reward)"
    )
    for column in ("stage", "responses/s", "us/response", "time vs reference", "target"):
        table.add_column(column, justify="left" if column == "stage" else "right")
    for name, rate in rates.items():
        meets = "" if "reward" not in name else ("met" if rate >= TARGET_PER_S else "MISSED")
        table.add_row(name, f"{rate:,.0f}", f"{1e6 / rate:.1f}", f"{reference / rate:.1f}", meets)
    console.print(table)


if __name__ == "__main__":
    scoring_section(bench_console(), quick="--quick" in sys.argv)
