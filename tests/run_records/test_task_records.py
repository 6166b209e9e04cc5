"""Records in the task's own models: written as the task made them, read back through the task
the record names, and carried between processes; MAPF-FrozenLake's keep their plain classes."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from designers import DesignContext, Proposal, kept_step
from mapf_env import load_suite, stratified
from run_records import (
    ResultRecord,
    RoundResult,
    RunFileError,
    read_result,
    read_round,
    stamp,
    task_records,
)
from tasks import CutReport, CutSuiteResult
from tasks import stratified as task_stratified
from tasks.mapf_frozenlake import MapfFrozenLake
from tasks.reasoning_gym import ReasoningGym
from tasks.reasoning_gym.config import RgConfig, RgStats

SAMPLES = 12


@pytest.fixture
def gym(reasoning_gym_task: ReasoningGym) -> ReasoningGym:
    return reasoning_gym_task


def gym_record(gym: ReasoningGym) -> ResultRecord:
    """A finished two-round run of reasoning-gym, answered with empty and reference answers."""
    records = task_records(gym)
    config = gym.initial_config(0, SAMPLES)
    made = gym.generate(config, 3)
    suite = task_stratified(gym.suite("rg-validation"), gym.cuts, 10)
    answers = [gym.reference_answer(it.item) or "" if i % 2 else "" for i, it in
               enumerate(suite.items)]  # fmt: skip
    report = gym.report(suite.items, answers)
    step = kept_step("random", config, "rate limit", ("rate limit",))
    rounds = [
        records.round(
            round=n,
            config=config,
            stats=made.stats,
            validation=report,
            proposal=step if n == 0 else None,
            train_seconds=1.0,
            samples=SAMPLES,
            epochs=1,
        )
        for n in range(2)
    ]
    result = gym.score_suite(suite, answers, [[a, ""] for a in answers], 2)
    experiment = {"task": gym.id, "task_settings": gym.settings.model_dump(mode="json")}
    return records.result(**stamp(), experiment=experiment, designer="random", seed=0,
                          backend="trl", initial_source="shared", rounds=tuple(rounds),
                          suites={"rg-validation": result}, seconds=2.0)  # fmt: skip


def test_the_default_tasks_records_are_the_plain_classes() -> None:
    records = task_records(MapfFrozenLake())
    assert (records.round, records.result, records.context) == (
        RoundResult, ResultRecord, DesignContext,
    )  # fmt: skip


def test_another_tasks_record_reads_back_in_its_models(gym: ReasoningGym, tmp_path: Path) -> None:
    record = gym_record(gym)
    path = tmp_path / "result.json"
    path.write_text(record.model_dump_json(indent=2))
    back = read_result(path)
    assert back == record
    first = back.rounds[0]
    assert isinstance(first.config, RgConfig) and isinstance(first.stats, RgStats)
    assert isinstance(first.validation, CutReport) and set(first.validation.by_cut) == {
        "dataset", "level",
    }  # fmt: skip
    assert first.proposal is not None and isinstance(first.proposal.config, RgConfig)
    assert isinstance(back.suites["rg-validation"], CutSuiteResult)
    assert first.history_entry().config == first.config
    (tmp_path / "round-000").mkdir()
    (tmp_path / "round-000" / "round.json").write_text(first.model_dump_json())
    assert read_round(tmp_path / "round-000", task_records(gym)) == first


def test_another_tasks_record_crosses_processes(gym: ReasoningGym) -> None:
    """A run's record goes from its worker process to the parent by pickle."""
    record = gym_record(gym)
    back = pickle.loads(pickle.dumps(record))
    assert back == record and type(back) is type(record)
    assert isinstance(back.rounds[0].proposal, Proposal)


def test_a_record_of_a_task_not_installed_is_one_line(gym: ReasoningGym, tmp_path: Path) -> None:
    data = json.loads(gym_record(gym).model_dump_json())
    data["experiment"]["task"] = "sokoban-v3"
    path = tmp_path / "result.json"
    path.write_text(json.dumps(data))
    with pytest.raises(RunFileError) as caught:
        read_result(path)
    message = str(caught.value)
    assert "a record of a task this installation cannot read" in message
    assert "no task 'sokoban-v3'" in message and "\n" not in message


def test_another_tasks_verdicts_keep_their_cuts(gym: ReasoningGym) -> None:
    result = gym_record(gym).suites["rg-validation"]
    assert isinstance(result, CutSuiteResult)
    assert all(set(v.cuts) == {"dataset", "level"} for v in result.verdicts)
    greedy = result.greedy
    assert greedy.overall.n == len(result.verdicts)
    assert sum(c.n for c in greedy.by_cut["dataset"].values()) == greedy.overall.n
    assert greedy.overall.valid == sum(v.valid for v in result.verdicts)
    assert greedy.failures["no_answer"] >= len(result.verdicts) // 2


@pytest.mark.parametrize("name", ["validation", "3agents", "5agents"])
def test_a_tasks_stratified_subset_is_the_testbeds(name: str) -> None:
    """The generic stratified subset over the task's cuts picks exactly the instances the
    testbed's own does, so answers stored with --limit re-score on the same subset."""
    task = MapfFrozenLake()
    for limit in (1, 4, 7, 24, 120):
        mine = [it.id for it in task_stratified(task.suite(name), task.cuts, limit).items]
        theirs = [it.instance.id for it in stratified(load_suite(name), limit).items]
        assert mine == theirs
