"""Re-scoring a run's stored answers with the installed task, and what disagrees.

The installed suites of the record's task (checked against its checksums first) and
`run_records.score_answers` -- the very scorer the round loop and `harness eval` use --
turn the stored answers into a fresh suite result; every field of every stored verdict and
every count of the stored reports must equal the fresh one's. A zero-shot record made with
`--limit` was scored on the stratified subset of that size, so that subset is rebuilt.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from run_records import ResultRecord, read_answers, recorded_task, score_answers
from tasks import Suite, stratified


def installed_suite(record: ResultRecord, name: str) -> Suite[Any]:
    """The installed suite `name` of the record's task as the record was scored on it (its
    --limit subset)."""
    task = recorded_task(record.experiment.as_dict())
    return stratified(task.suite(name), task.cuts, record.experiment.limit)


def rescored(run_dir: Path, record: ResultRecord, name: str) -> BaseModel:
    """Suite `name`'s result from the run's stored answers, judged by the record's task;
    `AnswersError` when they do not read, or do not fit the installed suite (other ids,
    another order, too few samples)."""
    stored = record.suites[name]
    answers = read_answers(run_dir, name, record.answers_sha256[name])
    task = recorded_task(record.experiment.as_dict())
    return score_answers(task, installed_suite(record, name), answers, stored.best_of_n).result


def differences(stored: BaseModel, fresh: BaseModel) -> Iterator[str]:
    """Each way the stored result differs from the re-scored one, as a short phrase: per
    verdict, each field that differs; then every other field, reports included."""
    old_rows = stored.model_dump(mode="json")["verdicts"]
    new_rows = fresh.model_dump(mode="json")["verdicts"]
    if len(old_rows) != len(new_rows):
        yield f"{len(old_rows)} stored verdicts for {len(new_rows)} answers"
    for old, new in zip(old_rows, new_rows, strict=False):
        changed = [
            f"{field} stored {old.get(field)!r}, re-scored {new.get(field)!r}"
            for field in dict.fromkeys([*old, *new])
            if old.get(field) != new.get(field)
        ]
        if changed:
            yield f"instance {new.get('id')}: {'; '.join(changed)}"
    flat_old = _flat(stored.model_dump(mode="json", exclude={"verdicts"}))
    flat_new = _flat(fresh.model_dump(mode="json", exclude={"verdicts"}))
    for key in sorted(set(flat_old) | set(flat_new)):
        if flat_old.get(key) != flat_new.get(key):
            yield f"{key} stored {flat_old.get(key)!r}, re-scored {flat_new.get(key)!r}"


def _flat(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested fields as dotted keys (`greedy.per_size.3.valid`), leaves as they are."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(_flat(value, f"{path}."))
        else:
            out[path] = value
    return out
