"""The 3-5-agent validation suite as an experiment's validation: accepted by the config,
answered and reported with its agent counts mixed, and run through the round loop."""

from __future__ import annotations

from pathlib import Path

from harness.backends.factory import make_backend
from harness.evaluate import experiment_suite
from harness.experiment import ExperimentConfig
from harness.loop import run_designer
from harness.run_dir import RunDir
from mapf_env import EvalReport, reference_answer
from tasks.mapf_frozenlake import MapfFrozenLake

MAPF = MapfFrozenLake()
TINY = {"name": "tiny-multi", "rounds": 1, "samples_per_round": 60, "epochs_per_round": 1,
        "validation": "validation-multi", "benchmarks": ["validation-multi"], "best_of": 1,
        "limit": 63}  # fmt: skip


def test_an_experiment_takes_it_as_its_validation_suite() -> None:
    config = ExperimentConfig.from_mapping(TINY)
    assert config.validation == "validation-multi" and "validation-multi" in MAPF.suite_names
    assert MAPF.validation_suite == "validation"  # the paper's 2-agent set stays the default


def test_the_reference_answers_score_every_instance_valid_and_optimal() -> None:
    suite = experiment_suite(MAPF, "validation-multi", None)
    assert {it.item.n_agents for it in suite.items} == {3, 4, 5}
    report = MAPF.report(suite.items, [reference_answer(it.item) for it in suite.items])
    assert report.overall.n == 630 and report.overall.valid_rate == 1.0
    assert report.overall.optimal_soc_rate == 1.0
    assert report.overall.optimal_makespan_rate is not None  # both minima are keyed
    assert {size: c.n for size, c in report.per_size.items()} == {
        3: 30, 4: 60, 5: 90, 6: 90, 7: 90, 8: 90, 9: 90, 10: 90}  # fmt: skip
    assert sum(report.failures.values()) == 0
    rates = MAPF.rates(report)
    assert rates.overall.valid_rate == 1.0
    assert set(rates.by_first_cut) == {f"{size}x{size}" for size in range(3, 11)}
    assert "10x10" in MAPF.describe_report(report)


def test_a_suite_result_names_no_single_agent_count() -> None:
    suite = experiment_suite(MAPF, "validation-multi", 63)
    answers = [reference_answer(it.item) for it in suite.items]
    result = MAPF.score_suite(suite, answers, [[a] for a in answers], best_of=1)
    assert result.n_agents is None and result.greedy.overall.valid_rate == 1.0
    assert type(result).model_validate_json(result.model_dump_json()) == result


def test_the_round_loop_runs_with_it(tmp_path: Path) -> None:
    experiment = ExperimentConfig.from_mapping(TINY)
    backend = make_backend(experiment, threads=1)
    run = RunDir(tmp_path, experiment, "uniform", 0)
    record = run_designer(experiment, "uniform", 0, backend, run, workers=1)
    validation = record.rounds[0].validation
    assert EvalReport.model_validate(validation).overall.n == 63
    assert record.suites["validation-multi"].greedy.overall.n == 63
