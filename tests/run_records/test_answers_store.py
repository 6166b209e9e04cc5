"""Stored benchmark answers: written by the round loop and `harness eval` alike, before the
record, byte-stable, and re-scoring them gives back the record's results."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness.backends.cpu import CpuBackend, CpuLearnerSettings
from harness.backends.factory import make_backend
from harness.experiment import ExperimentConfig
from harness.loop import run_designer
from harness.policy_eval import Sampling, evaluate_policy, resolve_policy
from harness.run_dir import RunDir
from harness_cli import app
from mapf_env import load_suite, stratified
from mapf_env.prompt import reference_answer, render_user
from run_records import (
    RESULT_FILE,
    AnswersError,
    InstanceAnswers,
    ResultRecord,
    SuiteAnswers,
    answers_file,
    decode_answers,
    encode_answers,
    read_answers,
    read_result,
    score_answers,
)
from tasks.mapf_frozenlake import MapfFrozenLake, as_task_suite
from tests.designers.openai_server import ScriptedServer

MAPF = MapfFrozenLake()

TINY = {"name": "tiny", "rounds": 1, "samples_per_round": 60, "epochs_per_round": 1,
        "validation": "validation", "benchmarks": ["validation"], "best_of": 2}  # fmt: skip


def rescored_equals_record(directory: Path, record: ResultRecord, limit: int | None = None) -> None:
    """Every suite's stored answers, re-scored here, give exactly the record's result."""
    assert set(record.answers_sha256) == set(record.suites)
    for name, stored in record.suites.items():
        answers = read_answers(directory, name, record.answers_sha256[name])
        suite = as_task_suite(stratified(load_suite(name), limit))
        assert answers.ids == [item.item.id for item in suite.items]
        assert all(len(item.samples) == stored.best_of_n for item in answers.items)
        assert score_answers(MAPF, suite, answers, stored.best_of_n).result == stored


def test_the_round_loop_stores_every_answer_before_its_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    experiment = ExperimentConfig.from_mapping(TINY)
    run = RunDir(tmp_path, experiment, "random", 0)
    seen_before_record: dict[str, str] = {}
    write_result = RunDir.write_result

    def checking(self: RunDir, record: ResultRecord) -> None:
        assert not (self.path / RESULT_FILE).exists()
        for name in record.answers_sha256:
            path = self.path / answers_file(name)
            seen_before_record[name] = hashlib.sha256(path.read_bytes()).hexdigest()
        write_result(self, record)

    monkeypatch.setattr(RunDir, "write_result", checking)
    record = run_designer(experiment, "random", 0, make_backend(experiment, threads=1), run,
                          workers=1)  # fmt: skip
    assert seen_before_record == record.answers_sha256
    assert set(record.answers_sha256) == {"validation"}
    assert read_result(run.path) == record
    rescored_equals_record(run.path, record)
    blob = (run.path / answers_file("validation")).read_bytes()
    assert blob[4:8] == b"\0\0\0\0"  # no timestamp in the gzip header
    lines = gzip.decompress(blob).decode().splitlines()
    assert len(lines) == 400 and list(json.loads(lines[0])) == ["greedy", "id", "samples"]


def test_a_zero_shot_checkpoint_stores_its_answers_through_the_same_path(tmp_path: Path) -> None:
    backend = CpuBackend(CpuLearnerSettings(threads=1, hidden=(16,), seed=3))
    backend.save(tmp_path / "checkpoint")
    spec = resolve_policy(None, checkpoint=tmp_path / "checkpoint")
    outcome = evaluate_policy(spec, ["3agents"], sampling=Sampling(samples=3),
                              out=tmp_path / "runs", limit=12, seed=5)  # fmt: skip
    directory = outcome.path.parent
    assert read_result(outcome.path).answers_sha256 == outcome.record.answers_sha256
    rescored_equals_record(directory, outcome.record, limit=12)


def test_a_served_policy_stores_the_text_it_answered(
    openai_server: ScriptedServer, tmp_path: Path
) -> None:
    suite = stratified(load_suite("3agents"), 4)
    by_prompt = {render_user(item.instance): item.instance for item in suite.items}

    def respond(body: dict[str, Any]) -> str:
        instance = by_prompt[body["messages"][-1]["content"]]
        return reference_answer(instance) if instance.id != suite.items[1].instance.id else "no"

    openai_server.responder = respond
    result = CliRunner().invoke(app, ["eval", "--base-url", openai_server.base_url, "--policy",
                                      "scripted", "--bench", "3agents", "--limit", "4", "--out",
                                      str(tmp_path), "--quiet"])  # fmt: skip
    assert result.exit_code == 0, result.output
    directory = tmp_path / "policies" / "openai_scripted"
    record = read_result(directory)
    rescored_equals_record(directory, record, limit=4)
    answers = read_answers(directory, "3agents", record.answers_sha256["3agents"])
    expected = [reference_answer(item.instance) for item in suite.items]
    expected[1] = "no"
    assert answers.greedy == expected
    assert [v.valid for v in record.suites["3agents"].verdicts] == [True, False, True, True]


def test_answer_bytes_depend_only_on_the_answers() -> None:
    answers = SuiteAnswers(suite="s", items=(
        InstanceAnswers(id="a", greedy="Agent 1: (0,0)", samples=("x", "é")),
        InstanceAnswers(id="b", greedy="", samples=("", "")),
    ))  # fmt: skip
    blob = encode_answers(answers)
    assert blob == encode_answers(answers.model_copy(deep=True))
    assert decode_answers(blob, "s", "s.jsonl.gz") == answers
    assert blob != encode_answers(answers.model_copy(update={"items": answers.items[:1]}))


def test_an_old_record_without_answers_still_reads(tmp_path: Path) -> None:
    experiment = ExperimentConfig.from_mapping(TINY)
    run = RunDir(tmp_path, experiment, "random", 0)
    run_designer(experiment, "random", 0, make_backend(experiment, threads=1), run, workers=1)
    data = json.loads((run.path / RESULT_FILE).read_text())
    del data["answers_sha256"]
    (run.path / RESULT_FILE).write_text(json.dumps(data))
    assert read_result(run.path).answers_sha256 == {}


def test_damaged_or_hostile_answers_are_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = encode_answers(SuiteAnswers(suite="s", items=(
        InstanceAnswers(id="a", greedy="x" * 5000, samples=()),)))  # fmt: skip
    cases = [
        (good[:-9], "is cut short or has trailing bytes"),
        (good + good, "is cut short or has trailing bytes"),
        (b"not gzip at all", "is not a gzip file"),
        (gzip.compress(b'{"id": "a"}\n', mtime=0), "line 1 is not an answer line"),
        (gzip.compress(b"\xff\xfe\n", mtime=0), "is not UTF-8 text"),
    ]
    for blob, message in cases:
        with pytest.raises(AnswersError, match=message) as caught:
            decode_answers(blob, "s", "s.jsonl.gz")
        assert "\n" not in str(caught.value)
    monkeypatch.setattr("run_records.answers.MAX_ANSWERS_BYTES", 1000)
    with pytest.raises(AnswersError, match="inflates to more than"):
        decode_answers(good, "s", "s.jsonl.gz")
    (tmp_path / "answers").mkdir()
    (tmp_path / answers_file("s")).write_bytes(good)
    with pytest.raises(AnswersError, match=r"differs from the checksum its result\.json recorded"):
        read_answers(tmp_path, "s", "0" * 64)


def test_answers_that_do_not_fit_the_suite_are_refused() -> None:
    suite = as_task_suite(stratified(load_suite("3agents"), 3))
    texts = [reference_answer(item.item) for item in suite.items]
    answers = SuiteAnswers.of(suite, texts, [[t, t] for t in texts])
    assert all(v.valid for v in score_answers(MAPF, suite, answers, 2).result.verdicts)
    swapped = answers.model_copy(update={"items": answers.items[::-1]})
    wrong = f"answer 0 is for '{answers.ids[-1]}' where the suite has '{answers.ids[0]}'"
    with pytest.raises(AnswersError, match=wrong):
        score_answers(MAPF, suite, swapped, 2)
    with pytest.raises(AnswersError, match="2 answers for 3 instances"):
        score_answers(MAPF, suite, answers.model_copy(update={"items": answers.items[:2]}), 2)
    with pytest.raises(AnswersError, match="has 2 samples where best of 3 needs 3"):
        score_answers(MAPF, suite, answers, 3)
