"""Re-scoring a run's stored answers with the installed verifier, and what disagrees.

The installed suites (checked against the manifest's versions and checksums first) and
`run_records.score_answers` -- the very scorer the round loop and `harness eval` use --
turn the stored answers into a fresh `SuiteResult`; every field of every stored verdict and
every count of the stored reports must equal the fresh one's. A zero-shot record made with
`--limit` was scored on the stratified subset of that size, so that subset is rebuilt.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from mapf_env import BenchmarkSuite, load_suite, stratified
from run_records import ResultRecord, SuiteResult, read_answers, score_answers


def installed_suite(record: ResultRecord, name: str) -> BenchmarkSuite:
    """The installed suite `name` as the record was scored on it (its --limit subset)."""
    return stratified(load_suite(name), record.experiment.limit)


def rescored(run_dir: Path, record: ResultRecord, name: str) -> SuiteResult:
    """Suite `name`'s result from the run's stored answers; `AnswersError` when they do not
    read, or do not fit the installed suite (other ids, another order, too few samples)."""
    stored = record.suites[name]
    answers = read_answers(run_dir, name, record.answers_sha256[name])
    return score_answers(installed_suite(record, name), answers, stored.best_of_n).result


def differences(stored: SuiteResult, fresh: SuiteResult) -> Iterator[str]:
    """Each way the stored result differs from the re-scored one, as a short phrase."""
    if len(stored.verdicts) != len(fresh.verdicts):
        yield f"{len(stored.verdicts)} stored verdicts for {len(fresh.verdicts)} answers"
    for old, new in zip(stored.verdicts, fresh.verdicts, strict=False):
        changed = [
            f"{field} stored {getattr(old, field)!r}, re-scored {getattr(new, field)!r}"
            for field in type(old).model_fields
            if getattr(old, field) != getattr(new, field)
        ]
        if changed:
            yield f"instance {new.id}: {'; '.join(changed)}"
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
