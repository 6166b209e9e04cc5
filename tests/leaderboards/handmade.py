"""Hand-built ResultRecords whose right answers are known, for the aggregation tests."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import cycle
from pathlib import Path

from designers import Proposal
from leaderboards import LoadedRun
from mapf_env import EnvConfig, EvalReport, GenerationStats
from mapf_env.report import RateCounts
from run_records import InstanceVerdict, ResultRecord, RoundResult, SuiteResult, verdict_reports

EXPERIMENT = {"name": "hand", "backend": "cpu", "policy": "mlp", "rounds": 1, "designers": [],
              "seeds": [], "designer_options": {}, "benchmarks": ["3agents"]}  # fmt: skip
SUBSETS = ("wr_025", "wr_050", "wr_075")
HOLES = (0.1, 0.2, 0.3, 0.4, 0.5)

# Per size: a list of (valid, SOC-optimal) answers (makespan-optimal as SOC-optimal), or
# (valid, SOC-optimal, makespan-optimal).
Answer = tuple[bool, ...]
Answers = Mapping[int, Sequence[Answer]]


def rates(per_size: Mapping[int, tuple[int, ...]]) -> Answers:
    """{size: (n, valid, soc)} or {size: (n, valid, soc, makespan)} as answers: the first `valid`
    valid, the first `soc` SOC-optimal, the first `makespan` makespan-optimal."""
    return {
        s: [tuple(i < k for k in counts[1:]) for i in range(counts[0])]
        for s, counts in per_size.items()
    }


def suite(
    answers: Answers, name: str = "3agents", failure: str = "conflict", version: int = 2
) -> SuiteResult:
    """A suite result of `answers`, judged against both optima (suite version 2 unless
    `version`)."""
    rows = []
    for size, items in answers.items():
        subsets, holes = cycle(SUBSETS), cycle(HOLES)
        for i, answer in enumerate(items):
            valid, soc = answer[0], answer[1] and answer[0]
            span = (answer[2] if len(answer) == 3 else answer[1]) and valid
            flags = {
                "optimal_soc": soc,
                "optimal_makespan": span,
                "best_of_optimal_soc": soc,
                "best_of_optimal_makespan": span,
            }
            rows.append(
                InstanceVerdict(
                    id=f"{name}-s{size}-i{i:03d}", size=size, subset=next(subsets),
                    hole_ratio=next(holes), valid=valid, optimal=soc,
                    failure=None if valid else failure, cost=None, optimal_cost=None,
                    best_of_valid=valid, best_of_optimal=soc,
                    **flags,
                )
            )  # fmt: skip
    reports = verdict_reports(tuple(rows))  # counts as a run folds them: boards check them
    return SuiteResult(suite=name, n_agents=3, greedy=reports["greedy"],
                       best_of=reports["best_of"], best_of_n=1, verdicts=tuple(rows),
                       suite_version=version, content_sha256=f"hand-v{version}")  # fmt: skip


def record(designer: str, seed: int, suites: Mapping[str, SuiteResult]) -> ResultRecord:
    return ResultRecord(
        package_version="0.0.test", git_commit="abc", experiment=dict(EXPERIMENT),
        designer=designer, seed=seed, backend="cpu", initial_source="shared", rounds=(),
        suites=dict(suites), seconds=1.0,
    )  # fmt: skip


def run(designer: str, seed: int, answers: Answers, **more: Answers) -> LoadedRun:
    """A loaded run of `designer` with 3agents `answers` (and other suites by name)."""
    suites = {"3agents": suite(answers)}
    suites.update({name: suite(a, name) for name, a in more.items()})
    return LoadedRun(Path(f"hand/{designer}/seed-{seed}"), record(designer, seed, suites))


def designed(loaded: LoadedRun, reasons: Sequence[str | None], allow: bool = False) -> LoadedRun:
    """`loaded` with a design step per entry of `reasons`, then a last round without one.

    None: the designer designed; a reason: the step failed and kept the previous configuration.
    `allow`: the run was started with --allow-design-failures.
    """
    config = EnvConfig.uniform()
    stats = GenerationStats(sizes={}, total=0, seconds=0.0, workers=1)
    validation = EvalReport(
        overall=RateCounts(n=1, valid=1, optimal=0, optimal_soc=0, optimal_makespan=0),
        per_size={},
    )
    proposals: list[Proposal | None] = [
        Proposal(designer=loaded.record.designer, config=config, kept_previous=reason is not None,
                 failure_reason=reason, failures=(reason,) if reason else ())
        for reason in reasons
    ]  # fmt: skip
    rounds = [
        RoundResult(round=i, config=config, stats=stats, validation=validation, proposal=p,
                    train_seconds=0.1, samples=10, epochs=1)
        for i, p in enumerate([*proposals, None])
    ]  # fmt: skip
    update = {"rounds": tuple(rounds), "allow_design_failures": allow}
    return LoadedRun(loaded.path, loaded.record.model_copy(update=update))
