"""Representative design contexts: the situations every designer is checked on.

A designer meets very different contexts over a run: round 0 with nothing measured, a mid-run
round with a report and a history, a late round where every size is solved. `check_designer`
and the tests run every designer over the same few, built here so that a plug-in author's
checks and ours see exactly the same situations. The last one changes the experiment's fixed
fields (3 agents, 120 samples, the makespan objective) from their defaults, so a designer that
builds a fresh `EnvConfig` instead of changing the one it was given is caught.
"""

from __future__ import annotations

from collections.abc import Mapping

from designers.context import DesignContext, RoundRecord, TrainingInfo
from mapf_env import SIZES, EnvConfig, random_config
from mapf_env.report import FAILURE_TYPES, EvalReport, RateCounts

SAMPLE_VALID: dict[int, float] = {
    3: 0.95, 4: 0.9, 5: 0.7, 6: 0.5, 7: 0.3, 8: 0.15, 9: 0.05, 10: 0.0,
}  # fmt: skip
"""The mid-run valid rate per size: solved small maps, a frontier, unsolved large maps."""
SAMPLE_FAILURES: dict[int, dict[str, int]] = {
    5: {"conflict": 12, "goal": 3},
    6: {"hole": 20, "conflict": 5},
    7: {"hole": 10, "conflict": 20, "parse": 5},
    8: {"parse": 40},
    10: {"parse": 30, "hole": 20},
}
"""The mid-run failure counts per size and check (every other count is 0)."""


def sample_report(
    valid: Mapping[int, float],
    failures: Mapping[int, Mapping[str, int]],
    n: int = 50,
    optimal_share: float = 0.5,
    makespan_share: float = 0.6,
) -> EvalReport:
    """A validation report with the given valid rate per size and failure counts per size.

    `optimal_share` of each size's valid answers are optimal (half by default) under the answer
    key's objective, SOC; `makespan_share` of them are makespan-optimal. Sizes missing from
    `valid` have no valid answer, and failure types missing from `failures` count 0, so a
    report states a situation in a line or two.
    """
    per_size = {}
    for s in SIZES:
        soc = round(valid.get(s, 0.0) * n * optimal_share)
        span = round(valid.get(s, 0.0) * n * makespan_share)
        per_size[s] = RateCounts(
            n=n, valid=round(valid.get(s, 0.0) * n), optimal=soc, optimal_soc=soc,
            optimal_makespan=span,
        )  # fmt: skip
    totals = dict.fromkeys(FAILURE_TYPES, 0)
    full_failures = {}
    for s in SIZES:
        counts = {**dict.fromkeys(FAILURE_TYPES, 0), **failures.get(s, {})}
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


def sample_contexts() -> list[DesignContext]:
    """Round 0 with nothing measured; a mid-run round with a report, history and training
    bookkeeping; the last round with every size solved; a mid-run round of an experiment with
    3 agents, 120 samples and the makespan objective."""
    start = random_config(0)
    mid_report = sample_report(SAMPLE_VALID, SAMPLE_FAILURES)
    history = (
        RoundRecord(round=0, config=start, validation=sample_report({3: 0.5}, {3: {"parse": 25}})),
    )
    other = EnvConfig.model_validate(
        {**random_config(3, n_agents=3, samples=120).model_dump(), "objective": "makespan"}
    )
    return [
        DesignContext(round=0, total_rounds=3, config=start, initial_config=start, seed=0),
        DesignContext(
            round=1, total_rounds=3, config=start, initial_config=start, validation=mid_report,
            history=history, training=TrainingInfo(round=1, epochs=3, samples=4000), seed=0,
        ),
        DesignContext(
            round=2, total_rounds=3, config=EnvConfig.uniform(), initial_config=start,
            validation=sample_report(dict.fromkeys(SIZES, 1.0), {}), history=history, seed=1,
        ),
        DesignContext(
            round=1, total_rounds=4, config=other, initial_config=other, validation=mid_report,
            history=(RoundRecord(round=0, config=other, validation=mid_report),),
            training=TrainingInfo(round=1, epochs=1, samples=120), seed=3,
        ),
    ]  # fmt: skip
