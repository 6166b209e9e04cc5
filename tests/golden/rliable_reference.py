"""rliable's own outputs on seeded score matrices: the reference `leaderboards.robust` is tested on.

rliable does not import beside the project's pins (see `leaderboards.robust`), so this script runs
in a throwaway environment and writes `rliable_reference.json` beside it:

    python3 -m venv /tmp/rlvenv && /tmp/rlvenv/bin/pip install rliable "pandas<3"
    /tmp/rlvenv/bin/python tests/golden/rliable_reference.py

Score matrices are runs x tasks with values like the board's: per-cell rates of 150 instances
(multiples of 1/150), one column per (suite, map size) of the 3/4/5-agent suites (21). The cases
cover ties (values from a small set, and tasks where both sides are identical) and one run.
rliable draws its bootstrap indices from numpy's global generator, seeded here, so the file is
reproducible with the versions it records.
"""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np
from rliable import library, metrics

TASKS = 21
INSTANCES = 150
REPS = 20_000
"""Bootstrap replications of the mean and IQM intervals."""
PROFILE_REPS = 5_000
IMPROVEMENT_REPS = 2_000
"""Fewer: rliable runs scipy's Mann-Whitney test per task and resample (about 0.05 s each)."""
TAUS = np.arange(101) / 100
"""The board's 101 thresholds (percent 0..100), as fractions: tau k is k/100 exactly rounded."""
OUT = Path(__file__).with_suffix(".json")


def rates(rng: np.random.Generator, runs: int, centre: float, spread: float) -> np.ndarray:
    """Rates of `runs` runs on each task: binomial counts of 150 around a per-task rate, each
    run shifted as a whole (a seed that trained well is good on every task), so resampling
    runs within each task (stratified) and resampling whole runs give different intervals."""
    task = np.clip(centre + spread * rng.standard_normal(TASKS), 0.02, 0.98)
    shift = 0.06 * rng.standard_normal((runs, 1))
    per_run = np.clip(task + shift + 0.02 * rng.standard_normal((runs, TASKS)), 0.0, 1.0)
    return rng.binomial(INSTANCES, per_run) / INSTANCES


def tied(rng: np.random.Generator, runs: int) -> np.ndarray:
    """Rates from four values only, so many run-task scores (and whole tasks) tie."""
    return rng.choice([0, 75, 120, 150], size=(runs, TASKS)) / INSTANCES


def matrices() -> tuple[dict[str, np.ndarray], dict[str, tuple[np.ndarray, np.ndarray]]]:
    rng = np.random.default_rng(2606_17682)
    ties_x, ties_y = tied(rng, 4), tied(rng, 4)
    ties_y[:, :5] = ties_x[:, :5]  # five tasks where both sides are the same runs
    single = {"x": rates(rng, 1, 0.5, 0.2), "y": rates(rng, 1, 0.45, 0.2)}
    cases = {
        "five_runs": rates(rng, 5, 0.45, 0.2),
        "three_runs": rates(rng, 3, 0.4, 0.25),
        "ties": ties_x,
        "one_run": single["x"],
    }
    pairs = {
        "five_vs_three": (cases["five_runs"], cases["three_runs"]),
        "ties": (ties_x, ties_y),
        "one_vs_one": (single["x"], single["y"]),
    }
    return cases, pairs


def aggregates(name: str, scores: np.ndarray) -> dict[str, Any]:
    def both(x: np.ndarray) -> np.ndarray:
        return np.array([metrics.aggregate_mean(x), metrics.aggregate_iqm(x)])

    point, ci = library.get_interval_estimates({name: scores}, both, reps=REPS)
    profile, band = library.create_performance_profile({name: scores}, TAUS, reps=PROFILE_REPS)
    return {
        "scores": scores.tolist(),
        "aggregate_mean": float(point[name][0]),
        "aggregate_mean_interval": ci[name][:, 0].tolist(),
        "aggregate_iqm": float(point[name][1]),
        "aggregate_iqm_interval": ci[name][:, 1].tolist(),
        "profile": profile[name].tolist(),
        "profile_low": band[name][0].tolist(),
        "profile_high": band[name][1].tolist(),
    }


def improvement(name: str, x: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    def poi(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.array([metrics.probability_of_improvement(a, b)])

    point, ci = library.get_interval_estimates({name: [x, y]}, poi, reps=IMPROVEMENT_REPS)
    return {
        "x": x.tolist(),
        "y": y.tolist(),
        "probability_of_improvement": float(point[name][0]),
        "probability_of_improvement_interval": ci[name][:, 0].tolist(),
    }


def main() -> None:
    np.random.seed(2021)  # rliable's StratifiedBootstrap draws from numpy's global generator
    cases, pairs = matrices()
    reference = {
        "generator": "tests/golden/rliable_reference.py",
        "versions": {p: version(p) for p in ("rliable", "arch", "numpy", "scipy")},
        "reps": REPS,
        "profile_reps": PROFILE_REPS,
        "improvement_reps": IMPROVEMENT_REPS,
        "confidence": 0.95,
        "method": "percentile",
        "taus": TAUS.tolist(),
        "aggregates": {name: aggregates(name, s) for name, s in cases.items()},
        "improvements": {name: improvement(name, x, y) for name, (x, y) in pairs.items()},
    }
    OUT.write_text(json.dumps(reference, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
