"""Suite results judge every answer under both exact optima; a result or round record scored on
suite version 1's SOC-only answer keys is refused in one line that says how to re-score it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from envdesign_common import OLDER_RECORD
from mapf_env import BenchmarkSuite, Objective, format_plan, load_suite, reference_answer
from mapf_env.solver import solve
from run_records import ResultRecord, RunFileError, SuiteResult, read_result, size_mean
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


def _version_1_result() -> dict[str, Any]:
    """A suite result's raw fields as suite version 1's answer keys gave them: `optimal` only."""
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
    return raw


def test_a_version_1_result_is_refused_in_one_line_that_says_how_to_rescore_it() -> None:
    """A result scored on suite version 1 (or naming no version) is not read as anything: its
    `optimal` is not this version's, and it has no makespan flags."""
    raw = _version_1_result()
    for version in (1, None):
        with pytest.raises(ValidationError) as caught:
            SuiteResult.model_validate({**raw, "suite_version": version})
        (error,) = caught.value.errors()
        assert error["type"] == OLDER_RECORD
        assert error["msg"] == (
            "a suite result scored on suite version 1's answer keys (SOC minima only), which "
            "this version cannot read; re-score the run's stored answers "
            "(answers/<suite>.jsonl.gz) on the installed suites with run_records.score_answers, "
            "or run the experiment again where the run stored none"
        )
    fresh = SuiteResult.model_validate({**raw, "suite_version": 2, "content_sha256": "x"})
    assert fresh.optima == (Objective.SOC, Objective.MAKESPAN)  # version 2 is read as such


def test_a_result_file_of_version_1_is_one_line_naming_the_file_and_the_suite(
    tmp_path: Path,
) -> None:
    record = ResultRecord(package_version="0.1.0", git_commit="abc",
                          experiment={"name": "x", "benchmarks": ["validation"]},
                          designer="random", seed=0, backend="cpu", initial_source="shared",
                          rounds=(), suites={}, seconds=1.0)  # fmt: skip
    fields = json.loads(record.model_dump_json())
    fields["suites"] = {"validation": _version_1_result()}
    fields["rounds"] = [_version_1_round()]  # the suites' line is the one said: the whole record's
    path = tmp_path / "result.json"
    path.write_text(json.dumps(fields))
    with pytest.raises(RunFileError) as caught:
        read_result(path)
    message = str(caught.value)
    assert "\n" not in message and caught.value.problem == "older-form"
    assert message.startswith(
        f"{path} holds a suite result scored on suite version 1's answer keys (SOC minima only) "
        "at suites.validation, which this version cannot read; re-score the run's stored "
        "answers (answers/<suite>.jsonl.gz)"
    )


def _version_1_round() -> dict[str, Any]:
    """A round record's raw fields whose validation report counts only `optimal` (suite
    version 1's answer keys)."""
    from mapf_env import EvalReport, GenerationStats, random_config
    from tasks.mapf_frozenlake.scoring import judge

    items = load_suite("validation").items[:10]
    report = EvalReport.from_verdicts(
        (i.size, judge(i.instance, reference_answer(i.instance))) for i in items
    )
    raw = json.loads(report.model_dump_json())
    for counts in [raw["overall"], *raw["per_size"].values()]:
        del counts["optimal_soc"], counts["optimal_makespan"]
    return {"round": 0, "config": random_config(0).model_dump(mode="json"),
            "stats": GenerationStats(sizes={}, total=0, seconds=0.0, workers=1).model_dump(),
            "validation": raw, "train_seconds": 1.0, "samples": 10, "epochs": 1}  # fmt: skip


def test_a_round_record_of_version_1_is_refused_for_its_soc_keyed_validation() -> None:
    """A round.json whose validation report counts only `optimal` was scored on suite version
    1's answer keys: refused, where a report that counts both optima reads as it is."""
    from mapf_env import EvalReport
    from run_records import RoundResult
    from tasks.mapf_frozenlake.scoring import judge

    fields = _version_1_round()
    with pytest.raises(ValidationError) as caught:
        RoundResult.model_validate(fields)
    (error,) = caught.value.errors()
    assert error["type"] == OLDER_RECORD and error["loc"] == ()
    assert error["msg"] == (
        "a validation report scored on suite version 1's answer keys (SOC minima only), which "
        "this version cannot read; train the round again (`--resume` trains a round whose "
        "record does not read)"
    )
    items = load_suite("validation").items[:10]
    report = EvalReport.from_verdicts(
        (i.size, judge(i.instance, reference_answer(i.instance))) for i in items
    )
    assert RoundResult.model_validate({**fields, "validation": report}).validation == report
    empty = RoundResult.model_validate({**fields, "validation": EvalReport()})  # no answers
    assert empty.validation == EvalReport()
