"""Design contexts shared by the designer tests: the same situations for every designer."""

from __future__ import annotations

from designers import DesignContext, RoundRecord, TrainingInfo
from mapf_env import SIZES, EnvConfig, random_config
from mapf_env.report import EvalReport, RateCounts


def report(
    valid: dict[int, float],
    failures: dict[int, dict[str, int]],
    n: int = 50,
    optimal_share: float = 0.5,
    makespan_share: float = 0.6,
) -> EvalReport:
    """A validation report with the given valid rate per size and failure counts per size.

    `optimal_share` of each size's valid answers are optimal (half by default) under the answer
    key's objective, SOC; `makespan_share` of them are makespan-optimal.
    """
    per_size = {}
    for s in SIZES:
        soc = round(valid.get(s, 0.0) * n * optimal_share)
        span = round(valid.get(s, 0.0) * n * makespan_share)
        per_size[s] = RateCounts(
            n=n, valid=round(valid.get(s, 0.0) * n), optimal=soc, optimal_soc=soc,
            optimal_makespan=span,
        )  # fmt: skip
    totals: dict[str, int] = {}
    full_failures = {}
    for s in SIZES:
        counts = dict.fromkeys(
            ("parse", "agent_count", "start", "bounds", "hole", "illegal_move", "conflict", "goal"),
            0,
        )
        counts.update(failures.get(s, {}))
        full_failures[s] = counts
        for k, v in counts.items():
            totals[k] = totals.get(k, 0) + v
    overall = RateCounts(
        n=n * len(SIZES),
        valid=sum(c.valid for c in per_size.values()),
        optimal=sum(c.optimal for c in per_size.values()),
        optimal_soc=sum(c.optimal_soc or 0 for c in per_size.values()),
        optimal_makespan=sum(c.optimal_makespan or 0 for c in per_size.values()),
    )
    return EvalReport(overall=overall, per_size=per_size, failures=totals,
                      per_size_failures=full_failures)  # fmt: skip


VALID = {3: 0.95, 4: 0.9, 5: 0.7, 6: 0.5, 7: 0.3, 8: 0.15, 9: 0.05, 10: 0.0}
FAILURES = {
    5: {"conflict": 12, "goal": 3},
    6: {"hole": 20, "conflict": 5},
    7: {"hole": 10, "conflict": 20, "parse": 5},
    8: {"parse": 40},
    10: {"parse": 30, "hole": 20},
}


def contexts() -> list[DesignContext]:
    """Round 0 with nothing measured, a mid-run round with a report and history, the last round."""
    start = random_config(0)
    mid_report = report(VALID, FAILURES)
    history = (RoundRecord(round=0, config=start, validation=report({3: 0.5}, {3: {"parse": 25}})),)
    return [
        DesignContext(round=0, total_rounds=3, config=start, initial_config=start, seed=0),
        DesignContext(
            round=1, total_rounds=3, config=start, initial_config=start, validation=mid_report,
            history=history, training=TrainingInfo(round=1, epochs=3, samples=4000), seed=0,
        ),
        DesignContext(
            round=2, total_rounds=3, config=EnvConfig.uniform(), initial_config=start,
            validation=report({s: 1.0 for s in SIZES}, {}), history=history, seed=1,
        ),
    ]  # fmt: skip
