"""One run's directory: every step's output written atomically, and what resume reads back.

Layout of ``runs/<experiment>/<designer>/seed-<n>/``::

    run.json                 schema version, package version, commit, the resolved experiment
    round-000/config.yaml    the EnvConfig this round trained on
    round-000/curves.jsonl   training curves, one JSON line per optimiser step
    round-000/checkpoint/    the backend's state after training
    round-000/round.json     the finished round (stats, validation, proposal, and the sha256
                             of config.yaml and of every checkpoint file): written last
    answers/<suite>.jsonl.gz every benchmark answer (greedy and best-of samples, in suite
                             order; `run_records.answers`), written before result.json
    result.json              the final ResultRecord, with each answers file's sha256
    failure.json             why the run stopped with an error (removed once it finishes)
    failure.log              that error's traceback, which the terminal names but does not show

A round counts as finished only once its ``round.json`` exists, and every file is written to a
temporary name and renamed, so a run killed at any moment (kill -9 included) resumes from the
last finished round and never sees half a file. Files damaged afterwards (a full disk, a copy
cut short) are caught by `run_records.run_files`: a round whose record does not read, or whose
config or checkpoint no longer matches the checksums it recorded, counts as unfinished, so
resume trains it again from the round before -- round seeds depend only on (seed, round), so
the result is the undamaged run's. Only one process writes a run at a time (`harness.run_lock`).

Every file goes through `write_json` or `write_text`, which redact the values of the run's key
variables (those its designers' options name, and any that looks like a key:
`envdesign_common.redaction`) from the text before it is written. Model text is already
redacted where its call is recorded; this catches whatever else could carry a key into the run
directory and, through it, the published site (a rationale or summary quoting the model, a
failure message, a plug-in designer's own notes).
"""

from __future__ import annotations

import json
import shutil
import traceback
from collections.abc import Mapping
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any

from designers import parse_entry
from envdesign_common import Redactor, atomic_write_bytes, key_env_names, key_redactor
from envdesign_common.field_errors import shorten
from harness.experiment import ExperimentConfig
from run_records import (
    FAILURE_FILE,
    RESULT_FILE,
    ROUND_FILE,
    RUN_FILE,
    FailureRecord,
    ResultRecord,
    RoundResult,
    RunDirError,
    RunFileError,
    check_round,
    first_difference,
    one_line,
    read_failure,
    read_result,
    read_stamp,
    safe_name,
    stamp,
    task_records,
    vouched_files,
)

__all__ = ["FAILURE_LOG", "RunDir", "experiment_dir", "format_traceback"]

MAX_FAILURE_MESSAGE = 400
"""Characters of an exception's first line kept in failure.json."""
FAILURE_LOG = "failure.log"
"""The traceback (or what is known) of the error `failure.json` records, for whoever debugs it:
the terminal shows one line per failed run and names this file."""


def experiment_dir(root: Path, experiment: ExperimentConfig) -> Path:
    """Where an experiment's runs are written under `root` (its name made file-safe): the path
    a command prints is this one, never one built from the raw name."""
    return Path(root) / safe_name(experiment.name)


class RunDir:
    """The files of one (experiment, designer, seed) run."""

    def __init__(self, root: Path, experiment: ExperimentConfig, designer: str, seed: int) -> None:
        self.path = experiment_dir(root, experiment) / safe_name(designer) / f"seed-{seed}"
        self.experiment, self.designer = experiment, designer

    def round_path(self, n: int) -> Path:
        return self.path / f"round-{n:03d}"

    def checkpoint(self, n: int) -> Path:
        return self.round_path(n) / "checkpoint"

    def curves(self, n: int) -> Path:
        return self.round_path(n) / "curves.jsonl"

    def open(self, resume: bool) -> None:
        """Create the run, or check that an existing one is this experiment at this version.

        A fresh run's `run.json` is created exclusively: of two processes starting one run,
        the second is refused even if both found the directory free."""
        problem = self.problem(resume)
        if problem is not None:
            raise RunDirError(problem)
        if not (self.path / RUN_FILE).exists():
            record = {**stamp(), "experiment": self.experiment.model_dump(mode="json")}
            try:
                self.write_json(RUN_FILE, record, exclusive=True)
            except FileExistsError:
                raise RunDirError(self._taken()) from None

    def problem(self, resume: bool) -> str | None:
        """Why `open(resume)` would refuse this run (one line), or None when it can go on.

        A resumed run must have been started with the same experiment, but for what cannot
        change its numbers: the other designers and seeds of the comparison, and the options
        of other designers (so a comparison can be extended by a seed or a designer)."""
        if not (self.path / RUN_FILE).exists():
            return None
        if not resume:
            return self._taken()
        try:
            started_with = read_stamp(self.path).experiment.as_dict()
        except RunFileError as err:
            return str(err)
        changed = first_difference(
            resume_view(started_with, self.designer),
            resume_view(self.experiment.model_dump(mode="json"), self.designer),
        )
        if changed is not None:
            key, then, now = changed
            return (
                f"{self.path} was started with another experiment config ({key}: "
                f"{shorten(repr(then), 60)} then, {shorten(repr(now), 60)} now); resume it with "
                "the same config, or start a new run under another --out or --set name=..."
            )
        return None

    def _taken(self) -> str:
        return (
            f"{self.path} already holds a run; pass --resume to continue it, or choose "
            "another --out or --set name=..."
        )

    def write_json(self, relative: str | Path, data: Any, *, exclusive: bool = False) -> None:
        text = (
            data.model_dump_json(indent=2)
            if hasattr(data, "model_dump_json")
            else json.dumps(data, indent=2)
        )
        self.write_text(relative, text, exclusive=exclusive)

    def write_text(self, relative: str | Path, text: str, *, exclusive: bool = False) -> None:
        """Write `text` with the run's keys redacted (see the module docstring); `exclusive`:
        only if the file does not exist yet (`FileExistsError` otherwise)."""
        data = self._redactor.redact(text).encode("utf-8")
        atomic_write_bytes(self.path / relative, data, exclusive=exclusive)

    @cached_property
    def _redactor(self) -> Redactor:
        """The run's keys, looked up once: its config and environment are fixed for its life."""
        return key_redactor(key_env_names(self.experiment.model_dump(mode="json")))

    def finished_rounds(self) -> list[RoundResult]:
        """The finished rounds, in order, up to the first unfinished one.

        A round whose record does not read, or whose vouched files are missing or differ,
        ends the list like an unfinished one: resume trains it again.
        """
        rounds: list[RoundResult] = []
        records = task_records(self.experiment.task_object)
        while True:
            try:
                n = len(rounds)
                rounds.append(check_round(self.round_path(n), n, records=records))
            except RunFileError:
                return rounds

    def start_round(self, n: int) -> None:
        """Clear what an interrupted attempt at round n left behind."""
        shutil.rmtree(self.round_path(n), ignore_errors=True)
        self.round_path(n).mkdir(parents=True)

    def finish_round(self, result: RoundResult) -> RoundResult:
        """Write round.json last, with the checksums of the round's config and checkpoint;
        returns the round as written."""
        files = vouched_files(self.round_path(result.round))
        result = result.model_copy(update={"files": files})
        self.write_json(Path(self.round_path(result.round).name) / ROUND_FILE, result)
        return result

    def result(self) -> ResultRecord | None:
        """The final record; None when there is none or it does not read (resume redoes it)."""
        try:
            return read_result(self.path / RESULT_FILE)
        except RunFileError:
            return None

    def write_result(self, record: ResultRecord) -> None:
        self.write_json(RESULT_FILE, record)

    def write_failure(self, error: BaseException, log: str | None = None) -> FailureRecord:
        """Record why the run stopped (`failure.json`), so boards and `runs list` can say it,
        and `log` (a traceback; default: the error's own) in `failure.log`."""
        message = one_line(error, MAX_FAILURE_MESSAGE)
        failure = FailureRecord(**stamp(), error=type(error).__name__, message=message,
                                round=self._running_round(), time=datetime.now(UTC))  # fmt: skip
        self.write_text(FAILURE_LOG, log if log is not None else format_traceback(error))
        self.write_json(FAILURE_FILE, failure)
        return failure

    @property
    def failure_log(self) -> Path:
        """Where the traceback of the error in `failure.json` is (`write_failure`)."""
        return self.path / FAILURE_LOG

    def failure(self) -> FailureRecord | None:
        """Why the run failed, if it left a failure.json (`RunFileError` if that is damaged)."""
        return read_failure(self.path)

    def clear_failure(self) -> None:
        """Remove a failure.json (and its log) that a later, successful attempt made stale."""
        (self.path / FAILURE_FILE).unlink(missing_ok=True)
        self.failure_log.unlink(missing_ok=True)

    def _running_round(self) -> int | None:
        """The round an error stopped: the first unfinished one, if it had started."""
        n = len(self.finished_rounds())
        started = n < self.experiment.rounds and self.round_path(n).exists()
        return n if started else None


def format_traceback(error: BaseException) -> str:
    """`error` with its traceback and causes, as Python would print it."""
    return "".join(traceback.format_exception(error))


FREE_FOR_RESUME = ("designers", "seeds", "design_deadline_s", "design_deadlines")
"""Experiment fields a run may be resumed under other values of: they pick the runs of a
comparison or bound its steps, not what any one run computes."""


def resume_view(experiment: Mapping[str, Any], designer: str) -> dict[str, Any]:
    """The part of an experiment config (as recorded) that a run of `designer` depends on:
    all but `FREE_FOR_RESUME`, and only the designer options its entry is built with."""
    try:
        entry = parse_entry(designer)
        own = {entry.spec, entry.entry}
    except ValueError:
        own = {designer}
    view = {k: v for k, v in experiment.items() if k not in FREE_FOR_RESUME}
    options = view.get("designer_options")
    if isinstance(options, Mapping):
        view["designer_options"] = {k: v for k, v in options.items() if k in own}
    return view
