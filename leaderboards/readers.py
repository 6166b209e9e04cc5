"""Reading runs: `ResultRecord`s from run directories, result files, or roots holding many runs.

A path may be a `result.json`, one run directory (`runs/<experiment>/<designer>/seed-<n>/`), or
any directory above runs, searched recursively. Whatever cannot be read becomes one line naming
the run and what is wrong -- an unfinished run says how far it got -- and nothing is skipped
quietly: a board is built from every run asked for, or not at all.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from harness.records import RESULT_SCHEMA_VERSION, ResultRecord
from harness.run_dir import RESULT_FILE, ROUND_FILE, RUN_FILE
from leaderboards.errors import LeaderboardError


@dataclass(frozen=True)
class LoadedRun:
    """A finished run: where it was read from, and its record."""

    path: Path
    record: ResultRecord

    @property
    def name(self) -> str:
        return str(self.path)


def discover(paths: Iterable[Path]) -> list[Path]:
    """Run directories (or result files) at or under `paths`, each once, in path order."""
    found: dict[Path, None] = {}
    for path in paths:
        if not path.exists():
            raise LeaderboardError(f"{path}: no such file or directory")
        if path.is_file():
            found[path.parent if path.name == RESULT_FILE else path] = None
            continue
        if _is_run(path):
            found[path] = None
            continue
        runs = sorted({p.parent for name in (RUN_FILE, RESULT_FILE) for p in path.rglob(name)})
        if not runs:
            raise LeaderboardError(
                f"{path}: no runs under it (no {RUN_FILE} or {RESULT_FILE}); "
                "pass the --out directory of `harness compare`"
            )
        found.update(dict.fromkeys(runs))
    unique: dict[Path, Path] = {}
    for path in found:
        unique.setdefault(path.resolve(), path)
    return list(unique.values())


def load_runs(paths: Sequence[Path]) -> list[LoadedRun]:
    """Every run at or under `paths`; raises `LeaderboardError` naming the first bad one."""
    runs: list[LoadedRun] = []
    problems: list[str] = []
    for path in discover(paths):
        try:
            runs.append(load_run(path))
        except LeaderboardError as err:
            problems.append(str(err))
    if problems:
        more = f" (and {len(problems) - 1} more unreadable runs)" if len(problems) > 1 else ""
        raise LeaderboardError(problems[0] + more)
    return runs


def load_run(path: Path) -> LoadedRun:
    """One run directory or result file."""
    if path.is_file():
        return LoadedRun(path.parent, _read_record(path, path))
    result = path / RESULT_FILE
    if result.is_file():
        return LoadedRun(path, _read_record(result, path))
    if (path / RUN_FILE).is_file():
        raise LeaderboardError(f"{path}: {_progress(path)}")
    raise LeaderboardError(f"{path}: not a run directory (no {RUN_FILE} or {RESULT_FILE})")


def _is_run(path: Path) -> bool:
    return (path / RUN_FILE).is_file() or (path / RESULT_FILE).is_file()


def _progress(run: Path) -> str:
    """How far an unfinished run got, and what to do about it."""
    done = sum(1 for _ in run.glob(f"round-*/{ROUND_FILE}"))
    try:
        stamp = json.loads((run / RUN_FILE).read_text(encoding="utf-8"))
        total: Any = stamp.get("experiment", {}).get("rounds", "?")
    except (OSError, ValueError, AttributeError):
        total = "?"
    if str(done) == str(total):
        how_far = f"all {done} rounds finished but the final benchmarks were not written"
    else:
        how_far = f"{done} of {total} rounds finished"
    return (
        f"unfinished run, no {RESULT_FILE} yet ({how_far}); finish it with "
        "`harness compare ... --resume` or leave it out of the board"
    )


def _read_record(source: Path, run: Path) -> ResultRecord:
    try:
        text = source.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise LeaderboardError(f"{run}: cannot read {source.name}: {err}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise LeaderboardError(
            f"{run}: {source.name} is not valid JSON (line {err.lineno}, column {err.colno}: "
            f"{err.msg}); the file is damaged, re-run or remove it"
        ) from None
    if not isinstance(data, dict):
        raise LeaderboardError(f"{run}: {source.name} is not a result record (not a JSON object)")
    version = data.get("schema_version")
    if version != RESULT_SCHEMA_VERSION:
        raise LeaderboardError(
            f"{run}: result schema {version!r} (written by envdesign-bench "
            f"{data.get('package_version', '?')}); this version reads schema "
            f"{RESULT_SCHEMA_VERSION!r}: build this board with the version that wrote it"
        )
    try:
        record = ResultRecord.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "record"
        raise LeaderboardError(
            f"{run}: {source.name} is not a valid result record ({where}: {first['msg']})"
        ) from None
    _check_verdicts(record, run)
    return record


def _check_verdicts(record: ResultRecord, run: Path) -> None:
    """Verdicts must add up to the suite's report: the board reads both."""
    for name, suite in record.suites.items():
        if (
            len(suite.verdicts) != suite.greedy.overall.n
            or sum(v.valid for v in suite.verdicts) != suite.greedy.overall.valid
        ):
            raise LeaderboardError(
                f"{run}: suite {name}'s per-instance verdicts do not match its report "
                "(the record was edited or damaged)"
            )
