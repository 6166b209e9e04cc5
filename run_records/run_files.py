"""The one reader of a run directory's files, used by resume, `harness runs` and the boards.

Every file a run writes can be found truncated, emptied or garbled (a full disk, a copy cut
short, a hand edit). Whoever reads one gets either the validated record or a `RunFileError`
whose message is one line: the file, what is wrong with it, and what to do. Round records vouch
for the files beside them by checksum (`vouched_files`), so a damaged checkpoint or config is
found before a backend trips over it, and resume trains that round again instead.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import from_json

from envdesign_common import OLDER_RECORD, ConfigError, is_temporary
from run_records.recorded_experiment import RecordedExperiment
from run_records.schema import RESULT_SCHEMA_VERSION, FailureRecord, ResultRecord, RoundResult
from run_records.task_records import TaskRecords, recorded_task, task_records
from tasks import TaskLoadError, UnknownTask

RUN_FILE = "run.json"
ROUND_FILE = "round.json"
RESULT_FILE = "result.json"
FAILURE_FILE = "failure.json"
CONFIG_FILE = "config.yaml"
CHECKPOINT_DIR = "checkpoint"
POLICIES_DIR = "policies"

Problem = Literal["missing", "damaged", "other-version", "older-form"]
"""What is wrong with a run file: "older-form" is a record of a form this version does not read
(`envdesign_common.older_record`), whose message says how to make one it reads."""
Model = TypeVar("Model", bound=BaseModel)


def safe_name(name: str) -> str:
    """A designer entry as a file or directory name (`llm:openai/gpt-4o` -> `llm_openai_gpt-4o`,
    `gpt@V6+details` -> `gpt_V6_details`).

    `@` and `+` are legal in POSIX and Windows file names, but the name also travels into verl's
    experiment names, tracker run ids and the site's URLs (where some static hosts read `+` as
    a space), so only `[A-Za-z0-9._-]` is kept; preflight refuses entries that would collide.
    """
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)


class RunDirError(RuntimeError):
    """A run directory that cannot be resumed as asked (another version or experiment)."""


class RunFileError(RunDirError):
    """A run file that is missing, damaged or of another version; the message is one line."""

    def __init__(self, path: Path, wrong: str, todo: str, problem: Problem = "damaged") -> None:
        wrong = " ".join(wrong.splitlines())  # a validator's message may span lines
        self.path, self.wrong, self.todo, self.problem = path, wrong, todo, problem
        super().__init__(f"{path} {wrong}; {todo}")

    def __reduce__(self) -> tuple[type[RunFileError], tuple[Path, str, str, Problem]]:
        """Rebuilt from its parts, so it crosses from a pool's worker process intact."""
        return type(self), (self.path, self.wrong, self.todo, self.problem)


class RunStamp(BaseModel):
    """`run.json`: what started the run (the resolved experiment) and with which code."""

    model_config = ConfigDict(frozen=True, extra="allow")

    schema_version: str
    package_version: str = "?"
    git_commit: str = "?"
    experiment: RecordedExperiment = Field(description="The resolved ExperimentConfig.")

    @property
    def rounds(self) -> int | None:
        return self.experiment.rounds


RUN_REMEDY = (
    "it holds the experiment the run was started with: restore the file, or remove the run "
    "directory and start the run again"
)
ROUND_REMEDY = "`--resume` trains this round again from the round before"
RESULT_REMEDY = "`--resume` runs the final benchmarks again"
FAILURE_REMEDY = "remove the file, or `--resume` the run"


def read_stamp(run: Path) -> RunStamp:
    """The run's `run.json`, whose schema must be this version's."""
    stamp = _read_model(run / RUN_FILE, RunStamp, "run record", RUN_REMEDY)
    if stamp.schema_version != RESULT_SCHEMA_VERSION:
        raise RunFileError(
            run / RUN_FILE,
            f"was written by record schema {stamp.schema_version} (envdesign-bench "
            f"{stamp.package_version}); this version writes {RESULT_SCHEMA_VERSION}",
            "read it with the version that wrote it, or start a new run under another --out or "
            "--set name=...",
            "other-version",
        )
    return stamp


def read_round(round_dir: Path, records: TaskRecords | None = None) -> RoundResult:
    """A round's `round.json` as written (`check_round` also checks its files), in the models
    of the run's task (`records`; None: MAPF-FrozenLake's)."""
    model = records.round if records is not None else RoundResult
    return _read_model(round_dir / ROUND_FILE, model, "round record", ROUND_REMEDY)


def read_result(path: Path) -> ResultRecord:
    """A `result.json` (a file, or the run directory holding one) of this schema version."""
    path = path / RESULT_FILE if path.is_dir() else path
    return _result(path, _read_json(path, RESULT_REMEDY))


def parse_run_file(path: Path, raw: bytes, records: TaskRecords | None = None) -> BaseModel:
    """The bytes of a run record (`run.json`, `round.json`, `result.json`, `failure.json`, by
    the name of `path`) read as the readers above read the file, `RunFileError` naming `path`
    as they do: for copies of a run (bundles, sites) that must carry exactly what was checked,
    without opening the path a second time. `records`: the run's task's (a round record's
    models; None: MAPF-FrozenLake's)."""
    if path.name == RESULT_FILE:
        return _result(path, _parse_json(path, raw, RESULT_REMEDY))
    if path.name not in _RECORDS:
        raise ValueError(f"{path.name} is not a run record ({', '.join(_RECORDS)}, {RESULT_FILE})")
    model, kind, todo = _RECORDS[path.name]
    if path.name == ROUND_FILE and records is not None:
        model = records.round
    return _validate(path, _parse_json(path, raw, todo), model, kind, todo)


def _result(path: Path, data: Any) -> ResultRecord:
    if not isinstance(data, dict):
        raise RunFileError(path, "is not a result record (not a JSON object)", RESULT_REMEDY)
    version = data.get("schema_version")
    if version != RESULT_SCHEMA_VERSION:
        raise RunFileError(
            path,
            f"has result schema {version!r} (written by envdesign-bench "
            f"{data.get('package_version', '?')}); this version reads schema "
            f"{RESULT_SCHEMA_VERSION!r}",
            "read it with the version that wrote it",
            "other-version",
        )
    experiment = data.get("experiment")
    try:
        task = recorded_task(experiment if isinstance(experiment, dict) else None)
    except (UnknownTask, TaskLoadError, ConfigError) as err:
        wrong = f"is a record of a task this installation cannot read ({one_line(err)})"
        todo = "install the task's package, or read the record where it is installed"
        raise RunFileError(path, wrong, todo) from None
    model = task_records(task).result
    return _validate(path, data, model, "result record", RESULT_REMEDY)


def read_failure(run: Path) -> FailureRecord | None:
    """Why the run failed, when it left a `failure.json`; None when it did not."""
    path = run / FAILURE_FILE
    if not path.exists():
        return None
    return _read_model(path, FailureRecord, "failure record", FAILURE_REMEDY)


def one_line(error: BaseException, limit: int = 400) -> str:
    """An exception's first line, cut to `limit` characters, for records and one-line errors.

    A first line that ends in a colon only heads a list (one problem per line, as this project's
    errors are), so the list is joined onto it: the line alone would say nothing."""
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    line = lines[0] if lines else "(no message)"
    if line.endswith(":") and len(lines) > 1:
        line = f"{line} {'; '.join(lines[1:])}"
    return line if len(line) <= limit else line[: limit - 3] + "..."


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def vouched_files(round_dir: Path) -> dict[str, str]:
    """Checksums of what a round record vouches for: config.yaml and every checkpoint file
    (not the temporary file of a save that was killed, which the round's next attempt clears)."""
    paths = [round_dir / CONFIG_FILE, *sorted((round_dir / CHECKPOINT_DIR).rglob("*"))]
    return {
        p.relative_to(round_dir).as_posix(): sha256_file(p)
        for p in paths
        if p.is_file() and not is_temporary(p)
    }


@dataclass(frozen=True)
class RunStatus:
    """How far a run got, for `harness runs list` and the boards' skipped lines."""

    state: Literal["finished", "failed", "unfinished", "unreadable", "other-version"]
    done: int
    total: int | None
    reason: str = ""
    """For a failed, unreadable or other-version run: one line saying why."""
    stamp: RunStamp | None = None
    """The run's run.json, when it reads."""

    def label(self) -> str:
        """`finished`, `unfinished 1 of 3`, or the state and its reason."""
        if self.state == "finished":
            return "finished"
        if self.state == "unfinished":
            return f"unfinished {self.done} of {self.total if self.total is not None else '?'}"
        return f"{self.state}: {self.reason}"


def run_status(run: Path) -> RunStatus:
    """The state of the run directory `run`: a result, a failure, or how far it got."""
    done, stamp = count_rounds(run), None
    try:
        stamp = read_stamp(run) if (run / RUN_FILE).exists() else None
        total = stamp.rounds if stamp is not None else None
        if (run / RESULT_FILE).exists():
            read_result(run)
            return RunStatus("finished", done, total, stamp=stamp)
        failure = read_failure(run)
    except RunFileError as err:
        if err.problem in ("other-version", "older-form"):
            return RunStatus("other-version", done, None, str(err), stamp)
        return RunStatus("unreadable", done, None, str(err), stamp)
    if failure is not None:
        return RunStatus("failed", done, total, failure.reason(), stamp)
    return RunStatus("unfinished", done, total, stamp=stamp)


def count_rounds(run: Path, *, verify: bool = False) -> int:
    """How many rounds are finished, in order: records that read (and, with `verify`, whose
    files match them; `harness runs list` skips that, as hashing checkpoints takes a while)."""
    n, records = 0, run_records_of(run)
    while round_error(run / f"round-{n:03d}", n, verify=verify, records=records) is None:
        n += 1
    return n


def run_records_of(run: Path) -> TaskRecords | None:
    """The record classes of the task run `run` was started with (its run.json); None when
    that does not read, or names a task this installation cannot build: its rounds are then
    read as MAPF-FrozenLake's, and do not read if they are another task's."""
    try:
        stamp = read_stamp(run)
        return task_records(recorded_task(stamp.experiment.as_dict()))
    except (RunFileError, UnknownTask, TaskLoadError, ConfigError):
        return None


def check_round(
    round_dir: Path, n: int, *, verify: bool = True, records: TaskRecords | None = None
) -> RoundResult:
    """Round `n`'s record, once it reads (in the models of the run's task, `records`) and
    (`verify`) the files it vouches for match it."""
    if not (round_dir / ROUND_FILE).exists():
        raise RunFileError(round_dir / ROUND_FILE, "is missing", ROUND_REMEDY, "missing")
    result = read_round(round_dir, records)
    if result.round != n:
        wrong = f"records round {result.round} in the directory of round {n} (damaged)"
        raise RunFileError(round_dir / ROUND_FILE, wrong, ROUND_REMEDY)
    for relative, expected in result.files.items() if verify else ():
        path = round_dir / relative
        if not path.is_file():
            wrong = f"is missing, though {ROUND_FILE} vouches for it"
            raise RunFileError(path, wrong, ROUND_REMEDY, "missing")
        if sha256_file(path) != expected:
            wrong = f"differs from the checksum {ROUND_FILE} recorded (damaged)"
            raise RunFileError(path, wrong, ROUND_REMEDY)
    return result


def round_error(
    round_dir: Path, n: int, *, verify: bool = True, records: TaskRecords | None = None
) -> RunFileError | None:
    """Why round `n` (in `round_dir`) does not count as finished; None when it does."""
    try:
        check_round(round_dir, n, verify=verify, records=records)
    except RunFileError as err:
        return err
    return None


def _read_model(path: Path, model: type[Model], kind: str, todo: str) -> Model:
    return _validate(path, _read_json(path, todo), model, kind, todo)


def _read_json(path: Path, todo: str) -> Any:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise RunFileError(path, "is missing", todo, "missing") from None
    except OSError as err:
        raise RunFileError(path, f"cannot be read ({err.strerror or err})", todo) from None
    return _parse_json(path, raw, todo)


def _parse_json(path: Path, raw: bytes, todo: str) -> Any:
    """The JSON value of `raw`. pydantic's parser reads a large result record in half the
    time; what it refuses goes through the standard library's, whose message names the
    problem (and which alone reads a lone surrogate escape)."""
    if not raw.strip():
        raise RunFileError(path, "is empty (damaged)", todo)
    try:
        return from_json(raw)
    except ValueError:
        pass
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as err:
        wrong = f"is not UTF-8 text (byte {err.start}): the file is damaged"
        raise RunFileError(path, wrong, todo) from None
    except json.JSONDecodeError as err:
        wrong = f"is not valid JSON (line {err.lineno}, column {err.colno}: {err.msg}): damaged"
        raise RunFileError(path, wrong, todo) from None


def _validate(path: Path, data: Any, model: type[Model], kind: str, todo: str) -> Model:
    try:
        return model.model_validate(data)
    except ValidationError as err:
        errors = err.errors()
        # A record of a form this version does not read: its other errors follow from its form.
        # The last such part says it (a result's suites come after its rounds, and their remedy
        # is the whole record's).
        older = next((e for e in reversed(errors) if e["type"] == OLDER_RECORD), None)
        if older is not None:
            where = ".".join(str(part) for part in older["loc"])
            context = older.get("ctx") or {}
            at = f" at {where}" if where else ""
            wrong = f"holds {context.get('what')}{at}, which this version cannot read"
            raise RunFileError(path, wrong, str(context.get("remedy")), "older-form") from None
        first = errors[0]
        where = ".".join(str(part) for part in first["loc"]) or "record"
        more = f" and {err.error_count() - 1} more" if err.error_count() > 1 else ""
        wrong = f"is not a valid {kind} ({where}: {first['msg']}{more})"
        raise RunFileError(path, wrong, todo) from None


_RECORDS: dict[str, tuple[type[BaseModel], str, str]] = {
    RUN_FILE: (RunStamp, "run record", RUN_REMEDY),
    ROUND_FILE: (RoundResult, "round record", ROUND_REMEDY),
    FAILURE_FILE: (FailureRecord, "failure record", FAILURE_REMEDY),
}
"""The records other than `result.json` (whose schema version is checked first), by file name."""
