"""A recorded experiment reads its named keys typed and writes back exactly what it read: the
same keys in the same order, none added, none coerced (record files are hashed)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from harness.experiment import ExperimentConfig
from run_records import RecordedExperiment, ResultRecord, RunStamp
from tests.leaderboards.handmade import rates, run

VERL = {
    "name": "gpu",
    "backend": "verl",
    "policy": "Qwen/Qwen3-4B",
    "rounds": 2,
    "designers": ["random", "gpt@V3"],
    "designer_options": {"gpt": {"api_key_env": "OPENAI_API_KEY"}},
    "best_of": 8,
    "verl": {"gpus": 4, "rollout": {"engine": "vllm", "tp": 2}, "micro_batch": None},
}


def _round_trip(recorded: dict[str, Any]) -> str:
    """`recorded` read as a record's experiment and written back, as JSON text."""
    return json.dumps(RecordedExperiment.model_validate(recorded).model_dump(mode="json"))


@pytest.mark.parametrize(
    "recorded",
    [
        ExperimentConfig().model_dump(mode="json"),  # no limit: the key is absent
        ExperimentConfig(limit=5).model_dump(mode="json"),
        VERL,
        {"limit": None},  # written as null by a zero-shot record: stays null
        {},
        {"zeta": 1, "name": "x", "alpha": [1, 2], "limit": 3, "sampling": {"samples": 2}},
    ],
    ids=["config", "limited", "backend-section", "null-limit", "empty", "extras-interleaved"],
)
def test_a_recorded_experiment_writes_back_exactly_what_it_read(recorded: dict[str, Any]) -> None:
    assert _round_trip(recorded) == json.dumps(recorded)
    read = RecordedExperiment.model_validate_json(json.dumps(recorded))
    assert read.model_dump_json() == json.dumps(recorded, separators=(",", ":"))
    assert read.as_dict() == recorded and list(read.as_dict()) == list(recorded)


def test_a_result_record_file_round_trips_byte_for_byte() -> None:
    record = run("random", 0, rates({3: (10, 6, 3)})).record
    for experiment in (VERL, {"extra": {"b": 1, "a": 2}, "name": "e"}):
        text = record.model_copy(
            update={"experiment": RecordedExperiment.model_validate(experiment)}
        ).model_dump_json(indent=2)
        assert json.loads(text)["experiment"] == experiment
        assert ResultRecord.model_validate_json(text).model_dump_json(indent=2) == text


def test_the_named_keys_are_typed_with_what_a_record_without_them_means() -> None:
    empty = RecordedExperiment.model_validate({})
    assert (empty.name, empty.policy, empty.rounds, empty.best_of, empty.limit) == (
        "", "?", None, 1, None
    )  # fmt: skip
    assert empty.designer_options == {} and empty.as_dict() == {}
    read = RecordedExperiment.model_validate(VERL)
    assert (read.name, read.policy, read.rounds, read.best_of, read.limit) == (
        "gpu", "Qwen/Qwen3-4B", 2, 8, None
    )  # fmt: skip
    assert read.designer_options["gpt"] == {"api_key_env": "OPENAI_API_KEY"}
    assert read["verl"] == VERL["verl"] and read["designers"] == ["random", "gpt@V3"]
    with pytest.raises(KeyError):
        read["limit"]


def test_a_value_is_refused_rather_than_coerced() -> None:
    with pytest.raises(ValidationError):
        RecordedExperiment.model_validate({"rounds": "3"})
    with pytest.raises(ValidationError):
        RecordedExperiment.model_validate_json('{"limit": 2.0}')


def test_experiments_compare_as_their_recorded_mappings() -> None:
    read = RecordedExperiment.model_validate(VERL)
    assert read == RecordedExperiment.model_validate(dict(reversed(VERL.items())))
    assert RecordedExperiment.model_validate({}) != RecordedExperiment.model_validate(
        {"limit": None}
    ), "a key written as null is not a key left out"
    changed = read.model_copy(update={"policy": "other", "precision": "bf16"})
    assert list(changed.as_dict()) == [*VERL, "precision"], "new keys go last, others stay"
    assert changed.policy == "other" and changed["precision"] == "bf16"


def test_a_run_stamp_carries_the_experiment_as_recorded() -> None:
    written = {"schema_version": "1", "package_version": "0.1", "git_commit": "abc",
               "experiment": VERL}  # fmt: skip
    stamp = RunStamp.model_validate_json(json.dumps(written))
    assert stamp.rounds == 2 and stamp.experiment.as_dict() == VERL
    assert stamp.model_dump_json() == json.dumps(written, separators=(",", ":"))
    assert RunStamp.model_validate({"schema_version": "1", "experiment": {}}).rounds is None
