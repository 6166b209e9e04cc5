"""Calibration of the CPU proxy: does its learner respond to the training distribution?

A board of designers is only worth what it can tell apart. This script measures, for the CPU
learner of a preset (``quick`` by default, with ``--set`` overrides as ``harness`` takes them):

``transfer``
    Train on one region of the configuration space with everything else at the benchmarks' own
    mix (`designers.builtin.matched.benchmark_mix`), and evaluate on every benchmark suite and
    both validation suites, by cut: the overall Sum (valid, makespan-optimal, greedy and
    best-of-n) and the rate over each cut (map size, wait subset, hole ratio, and whether the
    instance needs conflict resolution at all) of the 3-5-agent benchmarks pooled. The regions
    are the levers a designer moves: map sizes (small 3-5, large 8-10), hole shares (0.05,
    0.5), wait shares (0, 0.75), plus the benchmarks' mix itself (``matched``) and the paper's
    random round-0 configuration of the seed (``random``). Each region is trained from the same
    seeds, so differences are paired.
``controls``
    ``harness compare --preset controls`` at several budgets (``--rounds``): random, matched and
    harder, and the board's paired differences against random with their 95% intervals, for
    greedy and best-of-n answers. Run directories are kept under ``--out``, so a later
    ``agreement`` can read them.
``agreement``
    For the runs of one or more comparisons: each final checkpoint is answered on both
    validation suites (``validation``, 2 agents; ``validation-multi``, 3-5 agents, disjoint from
    the benchmarks), and each suite's ranking of the designers (mean over seeds) is compared
    with the benchmarks' ranking: Spearman's and Kendall's rank correlations, and whether the
    two controls come out on the same side of random.

Every table says which machine and which learner produced it. Run alone; two runs at a time
on a 2-core machine (``--jobs``) with one torch thread each. Example::

    python benchmarks/bench_calibration.py transfer --seeds 0 1 2
    python benchmarks/bench_calibration.py controls --rounds 10 20 --seeds 0 1 2 --out runs/cal
    python benchmarks/bench_calibration.py agreement runs/cal/rounds-20
"""

from __future__ import annotations

import argparse
import itertools
import json
import subprocess
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from statistics import mean
from typing import Any

from rich.console import Console
from rich.table import Table

BENCHMARKS = ("3agents", "4agents", "5agents")
VALIDATIONS = ("validation", "validation-multi")
REGIONS: dict[str, dict[str, Any]] = {
    "random": {},
    "matched": {},
    "sizes 3-5": {"sizes": (3, 5)},
    "sizes 8-10": {"sizes": (8, 10)},
    "holes 0.05": {"hole_ratio": 0.05},
    "holes 0.50": {"hole_ratio": 0.5},
    "waits 0.00": {"wait_ratio": 0.0},
    "waits 0.75": {"wait_ratio": 0.75},
}
"""Each region of the configuration space a transfer row trains on, over the matched mix."""
CUTS = ("size", "subset", "hole_ratio", "conflicted")
CONTROL_RATES = ("valid", "optimal_makespan", "optimal_soc")
"""The board's rates the controls table shows, by their keys in a board row's deltas."""
console = Console(width=160)


def experiment(preset: str, overrides: Sequence[str], seed: int) -> Any:
    """The preset's experiment with `overrides` (``key=value``, YAML values) and one seed."""
    from harness.experiment import ExperimentConfig
    from harness.presets import resolve_preset

    return ExperimentConfig.load(resolve_preset(preset), [*overrides, f"seeds=[{seed}]"])


def region_config(name: str, base: Any) -> Any:
    """The training configuration of region `name`, with `base`'s agents, budget, objective."""
    from designers.builtin.matched import benchmark_mix
    from mapf_env import EnvConfig, project

    if name == "random":
        return base
    sizes = {k: v.model_dump() for k, v in benchmark_mix().sizes.items()}
    change = REGIONS[name]
    for size, cell in sizes.items():
        if "sizes" in change:
            low, high = change["sizes"]
            cell["ratio"] = 1.0 if low <= size <= high else 0.0
        cell.update({k: v for k, v in change.items() if k != "sizes"})
    total = sum(cell["ratio"] for cell in sizes.values())
    draft = {f"{k}x{k}": {**v, "ratio": v["ratio"] / total} for k, v in sizes.items()}
    projected = project({"sizes": draft}).config
    return EnvConfig(
        sizes=projected.sizes, n_agents=base.n_agents, samples=base.samples,
        objective=base.objective,
    )  # fmt: skip


def train_region(job: tuple[str, str, tuple[str, ...], int]) -> dict[str, Any]:
    """One transfer cell: the preset's learner trained on a region, scored on every suite."""
    region, preset, overrides, seed = job
    from harness.evaluate import benchmark_suite, experiment_suite
    from harness.loop import round_seed, shared_start

    exp = experiment(preset, overrides, seed)
    task = exp.task_object
    config = region_config(region, shared_start(exp, seed))
    backend = exp.backend_spec.build(exp, threads=1)
    backend.initialise(seed)
    started = time.perf_counter()
    for n in range(exp.rounds):
        items = task.generate(config, round_seed(seed, n, "data"), workers=1).items
        backend.train_round(items, epochs=exp.epochs_per_round, seed=round_seed(seed, n, "train"))
    trained = time.perf_counter() - started
    suites, conflicted = {}, set()
    for name in (*BENCHMARKS, *VALIDATIONS):
        suite = experiment_suite(task, name, exp.limit)
        suites[name] = benchmark_suite(task, backend, suite, exp.best_of, seed).result
        conflicted |= {i.id for i in suite.items if i.item.optimum.needs_conflict_resolution}
    rows = verdict_rows(suites, conflicted)
    return {"region": region, "seed": seed, "seconds": trained, "rows": rows}


def verdict_rows(suites: dict[str, Any], conflicted: set[str]) -> list[dict[str, Any]]:
    """The per-instance verdicts of MAPF suite results, flattened with their suite's name and
    whether the instance needs conflict resolution (its answer key says so)."""
    return [
        {"suite": name, "size": v.size, "subset": v.subset, "hole_ratio": v.hole_ratio,
         "valid": v.valid, "optimal": bool(v.optimal_makespan), "best_valid": v.best_of_valid,
         "best_optimal": bool(v.best_of_optimal_makespan), "conflicted": v.id in conflicted}
        for name, result in suites.items() for v in result.verdicts
    ]  # fmt: skip


def cut_sum(rows: Iterable[dict[str, Any]], cut: str, field: str) -> float:
    """The Sum over `cut`'s values of `field`'s rate (points): every value weighs alike, as the
    paper's Sum weighs every map size alike."""
    groups: dict[Any, list[bool]] = {}
    for row in rows:
        groups.setdefault(row[cut], []).append(bool(row[field]))
    return 100 * mean(sum(g) / len(g) for g in groups.values())


def overall(rows: Sequence[dict[str, Any]], field: str, suites: Sequence[str]) -> float:
    """Mean over `suites` of each suite's Sum over map sizes (points)."""
    return mean(cut_sum([r for r in rows if r["suite"] == s], "size", field) for s in suites)


def run_transfer(args: argparse.Namespace) -> None:
    jobs = [(r, args.preset, tuple(args.set), s) for r in args.regions for s in args.seeds]
    with ProcessPoolExecutor(args.jobs) as pool:
        done = list(pool.map(train_region, jobs))
    by_region: dict[str, list[dict[str, Any]]] = {}
    for cell in done:
        by_region.setdefault(cell["region"], []).append(cell)
    header(args, f"transfer: {len(args.seeds)} seed(s) per region, paired")
    table = Table(title="Overall Sum (points), mean over seeds; Δ = region - random, paired")
    for col in ("region", "valid", "Δ", "opt. makespan", "Δ", "best-of valid", "Δ",
                "val. 2-agent", "val. 3-5", "train s"):  # fmt: skip
        table.add_column(col, justify="right")
    base = by_region.get("random")
    for region, cells in by_region.items():
        figures = []
        for field in ("valid", "optimal", "best_valid"):
            mine = [overall(c["rows"], field, BENCHMARKS) for c in cells]
            theirs = [overall(c["rows"], field, BENCHMARKS) for c in base] if base else None
            delta = (
                ""
                if theirs is None
                else f"{mean(a - b for a, b in zip(mine, theirs, strict=True)):+.1f}"
            )
            figures += [f"{mean(mine):.1f}", delta]
        val = [mean(overall(c["rows"], "valid", (v,)) for c in cells) for v in VALIDATIONS]
        seconds = mean(c["seconds"] for c in cells)
        table.add_row(region, *figures, *(f"{v:.1f}" for v in val), f"{seconds:.0f}")
    console.print(table)
    cuts = Table(title="Greedy valid rate by cut, 3-5-agent benchmarks pooled (points)")
    cuts.add_column("region")
    values = {cut: sorted({r[cut] for r in done[0]["rows"] if r["suite"] in BENCHMARKS})
              for cut in CUTS}  # fmt: skip
    for cut in CUTS:
        for value in values[cut]:
            cuts.add_column(cut_label(cut, value), justify="right")
    for region, cells in by_region.items():
        row = []
        for cut in CUTS:
            for value in values[cut]:
                picked = [[r for r in c["rows"] if r["suite"] in BENCHMARKS and r[cut] == value]
                          for c in cells]  # fmt: skip
                row.append(f"{mean(cut_sum(p, 'suite', 'valid') for p in picked):.1f}")
        cuts.add_row(region, *row)
    console.print(cuts)
    save(args, "transfer", done)


def cut_label(cut: str, value: Any) -> str:
    """A short column title: s3 (map size), wr_025 (wait subset), h0.1 (hole ratio),
    conflicted / free (whether the instance needs conflict resolution)."""
    labels = {"size": f"s{value}", "subset": str(value), "hole_ratio": f"h{value}",
              "conflicted": "conflicted" if value else "free"}  # fmt: skip
    return labels[cut]


def run_controls(args: argparse.Namespace) -> None:
    from leaderboards import build_board, load_runs
    from leaderboards.board import Answers

    header(args, "controls: random, matched, harder against the budget", "controls")
    table = Table(title="Overall Sum minus random (points), paired, [95% interval]")
    for col in ("rounds", "answers", "control", "valid", "opt. makespan", "opt. SOC", "minutes"):
        table.add_column(col, justify="right")
    for rounds in args.rounds:
        out = Path(args.out) / f"rounds-{rounds}"
        started = time.perf_counter()
        command = ["harness", "compare", "--preset", "controls", "--out", str(out),
                   "--set", f"rounds={rounds}", "--set", f"seeds={list(args.seeds)}",
                   *itertools.chain.from_iterable(("--set", s) for s in args.set)]  # fmt: skip
        subprocess.run(command, check=True)
        minutes = (time.perf_counter() - started) / 60
        runs = load_runs([out], strict=True)
        answers: Answers
        for answers in ("greedy", "best_of"):
            board = build_board(runs, answers=answers)
            for row in board.rows:
                if row.designer in ("matched", "harder") and row.delta_overall is not None:
                    cells = [delta_text(row.delta_overall.get(m)) for m in CONTROL_RATES]
                    table.add_row(str(rounds), answers, row.designer, *cells, f"{minutes:.1f}")
    console.print(table)


def delta_text(delta: Any) -> str:
    if delta is None:
        return "-"
    if delta.low is None:
        return f"{delta.mean:+.1f}"
    return f"{delta.mean:+.1f} [{delta.low:+.1f}, {delta.high:+.1f}]"


def rescore(run: Path) -> dict[str, Any]:
    """A finished run's final checkpoint, answered greedily on both validation suites."""
    from harness.evaluate import experiment_suite, validation_report
    from harness.experiment import ExperimentConfig
    from leaderboards import load_run

    loaded = load_run(run)
    record = loaded.record
    exp = ExperimentConfig.model_validate(record.experiment.model_dump())
    backend = exp.backend_spec.build(exp, threads=1)
    backend.load(final_checkpoint(run))
    task = exp.task_object
    found = {"designer": record.designer, "seed": record.seed}
    for name in VALIDATIONS:
        items = experiment_suite(task, name, exp.limit).items
        report = validation_report(task, backend, items, record.seed)
        found[name] = 100 * mean(c.valid_rate for c in report.per_size.values())  # type: ignore[attr-defined]
    results = {name: record.suites[name].greedy for name in BENCHMARKS}
    found["benchmarks"] = mean(
        100 * mean(c.valid_rate for c in r.per_size.values()) for r in results.values()
    )
    return found


def final_checkpoint(run: Path) -> Path:
    """The directory of the run's last saved checkpoint (the policy its suites scored)."""
    found = sorted(run.glob("**/cpu_policy.pt"), key=lambda p: p.stat().st_mtime)
    if not found:
        raise SystemExit(f"{run}: no CPU checkpoint (agreement re-answers with the CPU learner)")
    return found[-1].parent


def run_agreement(args: argparse.Namespace) -> None:
    from leaderboards.readers import discover

    runs, _ = discover([Path(p) for p in args.runs])
    with ProcessPoolExecutor(args.jobs) as pool:
        found = list(pool.map(rescore, runs))
    designers = sorted({f["designer"] for f in found})
    means = {d: {k: mean(f[k] for f in found if f["designer"] == d)
                 for k in (*VALIDATIONS, "benchmarks")} for d in designers}  # fmt: skip
    header(args, f"agreement: {len(found)} runs, {len(designers)} designers")
    table = Table(title="Greedy valid Sum (points), mean over seeds")
    for col in ("designer", *VALIDATIONS, "benchmarks"):
        table.add_column(col, justify="right")
    for d in sorted(designers, key=lambda d: -means[d]["benchmarks"]):
        table.add_row(d, *(f"{means[d][k]:.1f}" for k in (*VALIDATIONS, "benchmarks")))
    console.print(table)
    bench = [means[d]["benchmarks"] for d in designers]
    for name in VALIDATIONS:
        mine = [means[d][name] for d in designers]
        console.print(f"{name}: Spearman {spearman(mine, bench):+.2f}, Kendall "
                      f"{kendall(mine, bench):+.2f} against the benchmarks' ranking"
                      f"{controls_line(means, name)}")  # fmt: skip
    save(args, "agreement", found)


def controls_line(means: dict[str, dict[str, float]], suite: str) -> str:
    """Whether `suite` puts matched above and harder below random, as the benchmarks do."""
    if not {"random", "matched", "harder"} <= means.keys():
        return ""

    def side(d: str, k: str) -> str:
        return "above" if means[d][k] > means["random"][k] else "below"

    parts = [f"{d} {side(d, suite)} random (benchmarks: {side(d, 'benchmarks')})"
             for d in ("matched", "harder")]  # fmt: skip
    return "; " + ", ".join(parts)


def ranks(values: Sequence[float]) -> list[float]:
    order = sorted(range(len(values)), key=values.__getitem__)
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2
        i = j + 1
    return out


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman's rho: Pearson's correlation of the ranks (ties at their mean rank)."""
    ra, rb = ranks(a), ranks(b)
    ma, mb = mean(ra), mean(rb)
    num = sum((x - ma) * (y - mb) for x, y in zip(ra, rb, strict=True))
    den = (sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb)) ** 0.5
    return num / den if den else 0.0


def kendall(a: Sequence[float], b: Sequence[float]) -> float:
    """Kendall's tau-a: concordant minus discordant pairs, over all pairs."""
    pairs = list(itertools.combinations(range(len(a)), 2))
    signs = [(a[i] - a[j]) * (b[i] - b[j]) for i, j in pairs]
    score = sum(x > 0 for x in signs) - sum(x < 0 for x in signs)
    return score / len(pairs) if pairs else 0.0


def header(args: argparse.Namespace, what: str, preset: str | None = None) -> None:
    """What ran, and the learner's fingerprint on this machine (`harness doctor`'s line)."""
    preset = preset or args.preset
    console.print(f"[bold]{what}[/bold]: preset {preset}, "
                  f"{' '.join(args.set) or 'no overrides'}")  # fmt: skip
    exp = experiment(preset, args.set, args.seeds[0])
    console.print(exp.backend_spec.fingerprint(exp, 1))


def save(args: argparse.Namespace, part: str, found: Any) -> None:
    if args.json:
        Path(args.json).write_text(json.dumps({"part": part, "found": found}, default=str))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("part", choices=("transfer", "controls", "agreement"))
    parser.add_argument("runs", nargs="*", help="agreement: comparison directories")
    parser.add_argument("--preset", default="quick")
    parser.add_argument("--set", action="append", default=[], help="key=value, as harness")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--regions", nargs="+", default=list(REGIONS), choices=list(REGIONS))
    parser.add_argument("--rounds", type=int, nargs="+", default=[20])
    parser.add_argument("--out", default="runs/calibration")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", help="also write what was measured to this file")
    args = parser.parse_args(argv)
    if args.part == "agreement" and not args.runs:
        parser.error("agreement needs the comparison directories to read")
    {"transfer": run_transfer, "controls": run_controls, "agreement": run_agreement}[args.part](
        args
    )


if __name__ == "__main__":
    main()
