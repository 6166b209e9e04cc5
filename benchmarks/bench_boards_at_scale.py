"""Boards at scale: every board command over a root of many finished runs, against its budget.

    python benchmarks/bench_boards_at_scale.py                  # 1,000 runs (about 2 GB on disk)
    python benchmarks/bench_boards_at_scale.py --runs 20 --keep runs-20

A public leaderboard gathers thousands of runs, so each command that reads a whole root --
`leaderboard show` in every format, `publish`, `bundle`, `verify` and `runs list` -- must stay
within `TIME_BUDGET_S` and `MEMORY_BUDGET_MB` there. The root is built with the project's own
writers (`harness.run_dir.RunDir`, `run_records.store_scored`, the real shipped suites and the
real verifier), so every file is what a finished run writes: round records, answers files and
result records whose verdicts re-score to themselves. Only the answers are made up: each
designer answers a share of the instances with the answer key's optimal plan and the rest with
text that does not parse. Scoring is the slow part of writing a run, so a few answer profiles
are scored once and each run takes one of them (`PROFILES`): the board still sees distinct
verdicts per designer and seed.

Each command runs as a subprocess of the real `harness` CLI; its wall time and peak resident
memory (`ru_maxrss` of the finished child, through `os.wait4`) are printed beside the budgets.
`verify` re-scores every stored answer (about 28 million at 1,000 runs), so its budget is not
a time but the use of every core (`CORES_USED`); it checks a bundle of the first
`--verify-runs` runs. The exit status is 1 when any command missed its budget or failed.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script

from bench_console import bench_console

from designers import Proposal
from harness.experiment import ExperimentConfig
from harness.run_dir import RunDir
from mapf_env import EnvConfig, EvalReport, GenerationStats, format_plan, load_suite
from mapf_env.report import RateCounts
from run_records import (
    MachineRecord,
    ResultRecord,
    RoundResult,
    ScoredSuite,
    SuiteAnswers,
    current_machine,
    score_answers,
    stamp,
    store_scored,
)
from tasks.mapf_frozenlake import MapfFrozenLake, as_task_suite

TIME_BUDGET_S = 60.0
"""Seconds each command may take over the whole root (on the project's 2-core CI machine)."""
MEMORY_BUDGET_MB = 1024.0
"""Peak resident memory of each command. The root's result records alone are about 2 KB per
verdict on disk and far more as Python objects, so a command that holds every record at once
grows with the root; one that streams runs holds a few runs and the board's arrays (a few
bytes per verdict), about half of this at 1,000 runs."""
CORES_USED = 0.8
"""`verify` must keep this share of the machine's cores busy (CPU time over wall time)."""
PROFILES = 3
"""Answer profiles scored per designer quality level; a run takes one of them."""
SUITES = ("3agents", "4agents", "5agents")
BEST_OF = 8
SEEDS_PER_DESIGNER = 10
ROUNDS = 2
GARBLED = "I could not find a plan."
MAPF = MapfFrozenLake()


@dataclass(frozen=True)
class Measured:
    command: str
    seconds: float
    cpu_seconds: float
    """User and system time of the command and every process it started."""
    peak_mb: float
    returncode: int
    tail: str
    timed: bool = True
    """Held to `TIME_BUDGET_S`; otherwise to `CORES_USED`."""

    @property
    def cores(self) -> float:
        """Cores kept busy on average."""
        return self.cpu_seconds / max(self.seconds, 1e-9)

    def within(self) -> bool:
        pace = (
            self.seconds <= TIME_BUDGET_S
            if self.timed
            else self.cores >= CORES_USED * (os.cpu_count() or 1)
        )
        return self.returncode == 0 and pace and self.peak_mb <= MEMORY_BUDGET_MB


def answer_profiles(quality: float, profiles: int) -> list[dict[str, ScoredSuite]]:
    """`profiles` scored answer sets at `quality` (the share answered with the key's plan)."""
    out = []
    for p in range(profiles):
        rng = random.Random(f"{quality}-{p}")
        scored = {}
        for name in SUITES:
            suite = load_suite(name)
            greedy, sampled = [], []
            for item in suite.items:
                assert item.instance.optimum is not None
                plan = format_plan(item.instance.optimum.plan)
                greedy.append(plan if rng.random() < quality else GARBLED)
                sampled.append([plan if rng.random() < quality else GARBLED
                                for _ in range(BEST_OF)])  # fmt: skip
            shaped = as_task_suite(suite)
            answers = SuiteAnswers.of(shaped, greedy, sampled)
            scored[name] = score_answers(MAPF, shaped, answers, BEST_OF)
        out.append(scored)
    return out


def round_results(designer: str) -> list[RoundResult]:
    """`ROUNDS` finished rounds: a design step after each but the last."""
    config = EnvConfig.uniform()
    stats = GenerationStats(sizes={}, total=0, seconds=0.0, workers=1)
    counts = RateCounts(n=1, valid=1, optimal=0, optimal_soc=0, optimal_makespan=0)
    validation = EvalReport(overall=counts, per_size={})
    return [
        RoundResult(round=n, config=config, stats=stats, validation=validation,
                    proposal=Proposal(designer=designer, config=config) if n < ROUNDS - 1 else None,
                    train_seconds=0.1, samples=10, epochs=1)
        for n in range(ROUNDS)
    ]  # fmt: skip


def build_root(root: Path, runs: int) -> Path:
    """`runs` finished runs under `root` (designers of `SEEDS_PER_DESIGNER` seeds each; the
    baseline `random` among them); the experiment directory they are in."""
    designers = max(2, -(-runs // SEEDS_PER_DESIGNER))
    names = ["random", *(f"designer-{d:03d}" for d in range(1, designers))]
    experiment = ExperimentConfig(name="scale", backend="cpu", designers=("random",),
                                  rounds=ROUNDS, best_of=BEST_OF, benchmarks=SUITES)  # fmt: skip
    machine = current_machine("fp32", 1)  # as the CPU learner records it: one setup, pooled
    levels = sorted({round(0.3 + 0.5 * d / max(1, designers - 1), 1) for d in range(designers)})
    scored = {q: answer_profiles(q, PROFILES) for q in levels}
    for n in range(runs):
        designer, seed = names[n % designers], n // designers
        quality = round(0.3 + 0.5 * (n % designers) / max(1, designers - 1), 1)
        write_run(root, experiment, designer, seed, scored[quality][(seed * 7 + n) % PROFILES],
                  machine)  # fmt: skip
    return root / experiment.name


def write_run(
    root: Path, experiment: ExperimentConfig, designer: str, seed: int,
    scored: dict[str, ScoredSuite], machine: MachineRecord,
) -> None:  # fmt: skip
    run = RunDir(root, experiment, designer, seed)
    run.open(resume=False)
    rounds = []
    for result in round_results(designer):
        run.start_round(result.round)
        run.write_text(f"round-{result.round:03d}/config.yaml", result.config.to_yaml())
        rounds.append(run.finish_round(result))
    suites, checksums = store_scored(run.path, scored)
    record = ResultRecord(**stamp(), experiment=experiment.model_dump(mode="json"),
                          designer=designer, seed=seed, backend="cpu", initial_source="shared",
                          rounds=tuple(rounds), suites=suites, seconds=1.0,
                          answers_sha256=checksums, machine=machine)  # fmt: skip
    run.write_result(record)


def measure(label: str, argv: list[str], timed: bool = True) -> Measured:
    """Run `harness ...argv` to the end: its wall time, CPU time and peak RSS (the largest of
    it and the pool processes it started; a pool process holds a chunk of runs, not the
    board)."""
    harness = [sys.executable, "-m", "harness_cli", *argv]
    started = time.perf_counter()
    child = subprocess.Popen(harness, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert child.stdout is not None
    output = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    tail = output.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
    cpu = usage.ru_utime + usage.ru_stime  # its pool processes' too: they are waited for
    peak = usage.ru_maxrss / 1024
    return Measured(label, seconds, cpu, peak, child.returncode, tail[0][:120], timed)


def commands(runs: Path, work: Path, verify_runs: int) -> list[tuple[str, list[str]]]:
    board = ["leaderboard", "show", str(runs)]
    first = sorted(p.parent for p in runs.glob("*/seed-*/result.json"))[:verify_runs]
    return [
        ("show (terminal)", board),
        *(
            (f"show --format {f}", [*board, "--format", f, "--out", str(work / f"board.{f}")])
            for f in ("markdown", "csv", "json", "html")
        ),
        ("publish", ["leaderboard", "publish", str(runs), "--out", str(work / "site")]),
        ("bundle", ["leaderboard", "bundle", str(runs), "--out", str(work / "bundle.zip")]),
        ("runs list", ["runs", "list", str(runs)]),
        (f"bundle ({len(first)} runs)",
         ["leaderboard", "bundle", *map(str, first), "--out", str(work / "some.zip")]),
        (f"verify ({len(first)} runs)", ["leaderboard", "verify", str(work / "some.zip")]),
    ]  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1000, help="Finished runs in the root.")
    parser.add_argument(
        "--keep", type=Path, default=None, help="Build the root here and keep it (reused if there)."
    )
    parser.add_argument("--only", default=None, help="Only the commands whose label has this.")
    parser.add_argument(
        "--verify-runs", type=int, default=100, help="Runs in the bundle `verify` checks."
    )
    args = parser.parse_args()
    console = bench_console()
    work = Path(tempfile.mkdtemp(prefix="bench-boards-"))
    try:
        root = args.keep or work / "root"
        runs_dir = root / "scale"
        started = time.perf_counter()
        if not runs_dir.exists():
            build_root(root, args.runs)
        built = time.perf_counter() - started
        count = sum(1 for _ in runs_dir.glob("*/seed-*/result.json"))
        console.print(f"root: {count} runs under {runs_dir} (ready in {built:.1f} s); "
                      f"{os.cpu_count()} CPUs")  # fmt: skip
        results = []
        for label, argv in commands(runs_dir, work, args.verify_runs):
            if args.only and args.only not in label:
                continue
            found = measure(label, argv, timed=not label.startswith("verify"))
            results.append(found)
            console.print(f"{label}: {found.seconds:.1f} s, {found.cpu_seconds:.1f} s CPU, "
                          f"{found.peak_mb:.0f} MB "
                          f"(exit {found.returncode}) {found.tail}", highlight=False)  # fmt: skip
        table = Table(title=f"board commands over {count} runs")
        for column in ("command", "seconds", "of budget", "CPU s", "cores", "peak MB",
                       "of budget", "verdict"):  # fmt: skip
            table.add_column(column, justify="left" if column == "command" else "right")
        for m in results:
            verdict = "ok" if m.within() else ("FAILED" if m.returncode else "OVER BUDGET")
            share = f"{m.seconds / TIME_BUDGET_S:.0%}" if m.timed else "-"
            table.add_row(m.command, f"{m.seconds:.1f}", share, f"{m.cpu_seconds:.1f}",
                          f"{m.cores:.2f}", f"{m.peak_mb:.0f}",
                          f"{m.peak_mb / MEMORY_BUDGET_MB:.0%}", verdict)  # fmt: skip
        console.print(table)
        console.print(f"budgets: {TIME_BUDGET_S:.0f} s and {MEMORY_BUDGET_MB:.0f} MB per command; "
                      f"verify: {CORES_USED:.0%} of the {os.cpu_count()} cores busy")  # fmt: skip
        return 0 if all(m.within() for m in results) else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
