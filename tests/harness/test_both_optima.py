"""Suite results judge every answer under both exact optima, and old results still read."""

from __future__ import annotations

import json

from mapf_env import BenchmarkSuite, Objective, format_plan, load_suite, reference_answer
from mapf_env.solver import solve
from run_records import SuiteResult, size_mean
from tasks.mapf_frozenlake import MapfFrozenLake, as_task_suite

MAPF = MapfFrozenLake()


def _separating(suite: BenchmarkSuite) -> BenchmarkSuite:
    """The suite cut to instances whose makespan-optimal plan is not SOC-optimal."""
    keep = []
    for item in suite.items:
        key = item.instance.optimum
        assert key is not None and key.min_makespan is not None
        if key.makespan > key.min_makespan:
            keep.append(item)
    return suite.model_copy(update={"items": tuple(keep[:6])})


def _makespan_answer(suite: BenchmarkSuite, k: int) -> str:
    plan = solve(suite.items[k].instance.without_optimum(), Objective.MAKESPAN).plan
    assert plan is not None
    return format_plan(plan)


def test_best_of_n_counts_each_objective_over_all_samples() -> None:
    """One sample SOC-optimal, another makespan-optimal: best-of-n holds both, greedy one."""
    suite = _separating(load_suite("validation"))
    assert len(suite.items) >= 3
    greedy = [reference_answer(item.instance) for item in suite.items]
    sampled = [
        ["no answer", reference_answer(item.instance), _makespan_answer(suite, k)]
        for k, item in enumerate(suite.items)
    ]
    result = MAPF.score_suite(as_task_suite(suite), greedy, sampled, best_of=3)
    for v in result.verdicts:
        assert (v.optimal_soc, v.optimal_makespan) == (True, False)
        assert (v.best_of_optimal_soc, v.best_of_optimal_makespan) == (True, True)
    assert result.optima == (Objective.SOC, Objective.MAKESPAN)
    greedy_sum, best_sum = size_mean(result), size_mean(result, best_of=True)
    assert (greedy_sum.optimal_soc, greedy_sum.optimal_makespan) == (1.0, 0.0)
    assert best_sum.optimal_makespan == 1.0


def test_a_version_1_result_says_it_holds_soc_optima_only() -> None:
    """A record scored on version-1 suites (SOC keys) reads with its SOC flags and counts from
    `optimal` and no makespan rate, rather than a makespan rate of zero."""
    suite = load_suite("validation")
    suite = suite.model_copy(update={"items": suite.items[:20]})
    answers = [reference_answer(item.instance) for item in suite.items]
    raw = json.loads(
        MAPF.score_suite(as_task_suite(suite), answers, [[a] for a in answers], 1).model_dump_json()
    )
    raw["suite_version"] = 1
    for verdict in raw["verdicts"]:
        for key in ("optimal_soc", "optimal_makespan", "best_of_optimal_soc",
                    "best_of_optimal_makespan"):  # fmt: skip
            del verdict[key]
    for report in (raw["greedy"], raw["best_of"]):
        for counts in [report["overall"], *report["per_size"].values()]:
            del counts["optimal_soc"], counts["optimal_makespan"]
    old = SuiteResult.model_validate(raw)
    assert old.optima == (Objective.SOC,)
    assert all(v.optimal_soc is v.optimal is True for v in old.verdicts)
    assert all(v.optimal_makespan is None for v in old.verdicts)
    assert old.greedy.overall.optimal_soc == 20 and old.greedy.overall.optimal_makespan is None
    assert size_mean(old).optimal_makespan is None and size_mean(old).optimal_soc == 1.0


def test_a_round_record_of_version_1_reads_its_validation_as_soc_keyed() -> None:
    """A round.json written before suite version 2 has only `optimal` in its validation
    report; it reads with the SOC counts filled in and the makespan ones unknown."""
    from mapf_env import EvalReport, GenerationStats, random_config
    from run_records import RoundResult
    from tasks.mapf_frozenlake.scoring import judge

    items = load_suite("validation").items[:10]
    report = EvalReport.from_verdicts(
        (i.size, judge(i.instance, reference_answer(i.instance))) for i in items
    )
    raw = json.loads(report.model_dump_json())
    for counts in [raw["overall"], *raw["per_size"].values()]:
        del counts["optimal_soc"], counts["optimal_makespan"]
    fields = {"round": 0, "config": random_config(0).model_dump(mode="json"),
              "stats": GenerationStats(sizes={}, total=0, seconds=0.0, workers=1).model_dump(),
              "validation": raw, "train_seconds": 1.0, "samples": 10, "epochs": 1}  # fmt: skip
    old = RoundResult.model_validate(fields)
    assert old.validation.overall.optimal_soc == 10 == old.validation.overall.optimal
    assert old.validation.overall.optimal_makespan is None
    assert RoundResult.model_validate({**fields, "validation": report}).validation == report
