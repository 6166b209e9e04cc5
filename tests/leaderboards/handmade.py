"""Hand-built ResultRecords whose right answers are known, for the aggregation tests."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import cycle
from pathlib import Path

from designers import Proposal
from harness.records import InstanceVerdict, ResultRecord, RoundResult, SuiteResult
from leaderboards import LoadedRun
from mapf_env import EnvConfig, EvalReport, GenerationStats
from mapf_env.report import RateCounts

EXPERIMENT = {"name": "hand", "backend": "cpu", "policy": "mlp", "rounds": 1, "designers": [],
              "seeds": [], "designer_options": {}, "benchmarks": ["3agents"]}  # fmt: skip
SUBSETS = ("wr_025", "wr_050", "wr_075")
HOLES = (0.1, 0.2, 0.3, 0.4, 0.5)

# Per size: a list of (valid, optimal) answers.
Answers = Mapping[int, Sequence[tuple[bool, bool]]]


def rates(per_size: Mapping[int, tuple[int, int, int]]) -> Answers:
    """{size: (n, valid, optimal)} as answers: the first `valid` valid, first `optimal` optimal."""
    return {s: [(i < v, i < o) for i in range(n)] for s, (n, v, o) in per_size.items()}


def suite(answers: Answers, name: str = "3agents", failure: str = "conflict") -> SuiteResult:
    rows = []
    for size, items in answers.items():
        subsets, holes = cycle(SUBSETS), cycle(HOLES)
        for i, (valid, optimal) in enumerate(items):
            rows.append(
                InstanceVerdict(
                    id=f"{name}-s{size}-i{i:03d}", size=size, subset=next(subsets),
                    hole_ratio=next(holes), valid=valid, optimal=optimal and valid,
                    failure=None if valid else failure, cost=None, optimal_cost=None,
                    best_of_valid=valid, best_of_optimal=optimal and valid,
                )
            )  # fmt: skip
    per_size = {
        size: RateCounts(n=len(items), valid=sum(v for v, _ in items),
                         optimal=sum(v and o for v, o in items))
        for size, items in answers.items()
    }  # fmt: skip
    overall = RateCounts(n=sum(c.n for c in per_size.values()),
                         valid=sum(c.valid for c in per_size.values()),
                         optimal=sum(c.optimal for c in per_size.values()))  # fmt: skip
    report = EvalReport(overall=overall, per_size=per_size)
    return SuiteResult(suite=name, n_agents=3, greedy=report, best_of=report, best_of_n=1,
                       verdicts=tuple(rows), suite_version=1, content_sha256="hand")  # fmt: skip


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
    validation = EvalReport(overall=RateCounts(n=1, valid=1, optimal=0), per_size={})
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
