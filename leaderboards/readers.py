"""Reading runs: `ResultRecord`s from run directories, result files, or roots holding many runs.

A path may be a `result.json`, one run directory (`runs/<experiment>/<designer>/seed-<n>/`), or
any directory above runs, searched recursively (a published site met on the way is skipped
whole, no error: it holds copies of run files, not runs). A board is built from the finished
runs that read; every other run becomes one skipped line naming it, its kind (unfinished,
failed, unreadable, other version) and what to do -- an unfinished run says how
far it got, a failed one why it failed, a record whose counts its own verdicts contradict which
count -- and the commands print those lines, so nothing is left out quietly.
`strict` refuses the whole set instead. Files are read by `run_records.run_files`, the reader that
resume and `harness runs` use too.
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any, Literal, cast, overload

from pydantic import BaseModel

from leaderboards.errors import LeaderboardError
from leaderboards.site_manifest import MANIFEST, is_site
from run_records import (
    RESULT_FILE,
    RUN_FILE,
    ResultRecord,
    RunFileError,
    read_result,
    recorded_task,
    run_status,
)
from tasks import Task


@dataclass(frozen=True)
class LoadedRun:
    """A finished run: where it was read from, and its record."""

    path: Path
    record: ResultRecord

    @property
    def name(self) -> str:
        return str(self.path)

    @property
    def task(self) -> Task[Any, Any]:
        """The task the run was judged on, built with its recorded settings."""
        return recorded_task(self.record.experiment.as_dict())


def discover(paths: Iterable[Path]) -> tuple[list[Path], list[Path]]:
    """Run directories (or result files) at or under `paths`, each once, in path order; and
    the links under them that lead to runs, which are not followed (`_runs_under`)."""
    found: dict[Path, None] = {}
    links: list[Path] = []
    for path in paths:
        if not path.exists():
            raise LeaderboardError(f"{path}: no such file or directory")
        if path.is_file():
            found[path.parent if path.name == RESULT_FILE else path] = None
            continue
        if _is_run(path):
            found[path] = None
            continue
        runs, linked = _runs_under(path)
        links.extend(linked)
        if not runs and not linked and is_site(path):
            raise LeaderboardError(
                f"{path} is a published site ({MANIFEST}), not runs; pass the --out directory "
                "of `harness compare`"
            )
        if not runs and not linked:
            raise LeaderboardError(
                f"{path}: no runs under it (no {RUN_FILE} or {RESULT_FILE}); "
                "pass the --out directory of `harness compare`"
            )
        found.update(dict.fromkeys(runs))
    unique: dict[Path, Path] = {}
    for path in found:
        unique.setdefault(path.resolve(), path)
    return list(unique.values()), links


SkipKind = Literal["unfinished", "failed", "unreadable", "other-version", "link"]


@dataclass(frozen=True)
class SkippedRun:
    """A run a board leaves out: which kind of problem, and one line with what to do."""

    path: Path
    kind: SkipKind
    line: str

    def __str__(self) -> str:
        return self.line


@dataclass(frozen=True)
class RunSet(Sequence[LoadedRun]):
    """The runs a board is built from, and the ones left out (each with its reason).

    It is the sequence of loaded runs, so it goes straight to `build_board` and `publish_site`.
    """

    runs: tuple[LoadedRun, ...]
    skipped: tuple[SkippedRun, ...] = ()

    @overload
    def __getitem__(self, index: int) -> LoadedRun: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[LoadedRun]: ...

    def __getitem__(self, index: int | slice) -> LoadedRun | Sequence[LoadedRun]:
        return self.runs[index]

    def __len__(self) -> int:
        return len(self.runs)


class SkipError(LeaderboardError):
    """A run that cannot go on a board; `skipped` says which kind and what to do."""

    def __init__(self, path: Path, kind: SkipKind, line: str) -> None:
        super().__init__(line)
        self.skipped = SkippedRun(path, kind, line)


OnProgress = Callable[[int, int], None]
"""Called with (runs read so far, runs found)."""

PARALLEL_FROM = 16
"""Runs from which reading is spread over processes (fewer read faster in this one)."""
CHUNK = 8
"""Runs a reading process is given at once."""


def load_runs(
    paths: Sequence[Path], *, strict: bool = False, on_progress: OnProgress | None = None
) -> RunSet:
    """Every finished run at or under `paths`, and the others as skipped lines.

    `strict` refuses instead: a `LeaderboardError` naming the first run that cannot be read.
    Many runs are read by one process per CPU (parsing and checking a record is the slow part
    of a board); each distinct verdict is sent and held once, shared by every run (`PackedRun`).
    """
    found, links = discover(paths)
    runs: list[LoadedRun] = []
    skipped = [SkippedRun(link, "link", _link_line(link)) for link in links]
    unpack = _Unpacker()
    for done, loaded in enumerate(_read_all(found), 1):
        if isinstance(loaded, SkippedRun):
            skipped.append(loaded)
        else:
            runs.append(unpack(loaded))
        if on_progress is not None:
            on_progress(done, len(found))
    if strict and skipped:
        more = f" (and {len(skipped) - 1} more runs skipped)" if len(skipped) > 1 else ""
        raise LeaderboardError(skipped[0].line + more)
    return RunSet(tuple(runs), tuple(skipped))


def _read_all(found: list[Path]) -> Iterator[PackedRun | SkippedRun]:
    """Each run of `found` read (or skipped), in order; by a pool of processes when many."""
    workers = min(os.cpu_count() or 1, len(found) // PARALLEL_FROM)
    if workers < 2:
        packer = _Packer()
        yield from (_read_one(path, packer) for path in found)
        return
    with ProcessPoolExecutor(workers, initializer=_start_reading) as pool:
        yield from pool.map(_read_in_worker, found, chunksize=CHUNK)


Fields = tuple[type[BaseModel], tuple[object, ...]]
"""A verdict's class and its field values, in field order."""


def _fields(verdicts: Iterable[BaseModel]) -> list[Fields] | None:
    """Each verdict as its class and field values; None when they do not hash (a task's
    verdicts holding tables travel whole: only flat ones are shared)."""
    rows = [(type(v), tuple(v.__dict__.values())) for v in verdicts]
    try:
        hash(tuple(rows))
    except TypeError:
        return None
    return rows


@dataclass(frozen=True)
class PackedRun:
    """A finished run as a reading process sends it: its record without verdicts, each suite's
    verdicts as positions in the process's table of distinct verdicts, and the table's rows
    this process had not sent before.

    Runs of one benchmark judge the same instances and most instances get one of a few
    verdicts, so a root of many runs holds far fewer distinct verdicts than verdicts: each is
    sent (and made into an object) once, not once per run."""

    path: Path
    record: ResultRecord
    positions: dict[str, array[int]]
    reader: int
    """The process that read it: positions index that process's table."""
    new_rows: tuple[Fields, ...]
    """Rows appended to the reader's table by this run, in order."""


class _Packer:
    """A reading process's table of distinct verdicts (field values -> position)."""

    def __init__(self, reader: int = 0) -> None:
        self.reader, self.table = reader, dict[Fields, int]()

    def __call__(self, loaded: LoadedRun) -> PackedRun:
        start, positions = len(self.table), {}
        for name, suite in loaded.record.suites.items():
            rows = _fields(suite.verdicts)
            if rows is not None:
                at = (self.table.setdefault(row, len(self.table)) for row in rows)
                positions[name] = array("I", at)
        new_rows = tuple(islice(self.table, start, None))
        empty = {n: s.model_copy(update={"verdicts": ()}) if n in positions else s
                 for n, s in loaded.record.suites.items()}  # fmt: skip
        record = loaded.record.model_copy(update={"suites": empty})
        return PackedRun(loaded.path, record, positions, self.reader, new_rows)


class _Unpacker:
    """The reading side's tables, one per reading process, of verdicts shared by every run.

    A process's runs arrive in the order it read them (its chunks are handed out and
    returned in order), so its table grows here as it grew there."""

    def __init__(self) -> None:
        self.tables: dict[int, list[BaseModel]] = {}
        self.shared: dict[Fields, BaseModel] = {}

    def __call__(self, packed: PackedRun) -> LoadedRun:
        table = self.tables.setdefault(packed.reader, [])
        for row in packed.new_rows:
            verdict = self.shared.get(row)
            if verdict is None:
                kind, values = row
                verdict = self.shared[row] = kind.model_validate(
                    dict(zip(kind.model_fields, values, strict=True))
                )
            table.append(verdict)
        suites = {
            name: suite.model_copy(
                update={"verdicts": tuple(map(table.__getitem__, packed.positions[name]))}
            )
            if name in packed.positions
            else suite
            for name, suite in packed.record.suites.items()
        }
        return LoadedRun(packed.path, packed.record.model_copy(update={"suites": suites}))


_WORKER: list[_Packer] = []
"""A reading process's packer (set when the process starts)."""


def _start_reading() -> None:
    _WORKER[:] = [_Packer(os.getpid())]


def _read_in_worker(path: Path) -> PackedRun | SkippedRun:
    return _read_one(path, _WORKER[0])


def _read_one(path: Path, packer: _Packer) -> PackedRun | SkippedRun:
    try:
        return packer(load_run(path))
    except SkipError as err:
        return err.skipped


VerdictPool = dict[Fields, BaseModel]


def share_verdicts(record: ResultRecord, pool: VerdictPool) -> ResultRecord:
    """`record` with each verdict replaced by an equal one already in `pool` (or added to it):
    sharing the (frozen) objects keeps the memory of many runs of one benchmark from growing
    with runs x instances (see `PackedRun`)."""
    suites = {}
    for name, suite in record.suites.items():
        rows = _fields(suite.verdicts)
        if rows is None:
            suites[name] = suite
            continue
        shared = tuple(pool.setdefault(row, v) for row, v in zip(rows, suite.verdicts, strict=True))
        suites[name] = suite.model_copy(update={"verdicts": shared})
    return record.model_copy(update={"suites": suites})


def load_run(path: Path) -> LoadedRun:
    """One run directory or result file; `SkipError` (a `LeaderboardError`) when it cannot."""
    result = path if path.is_file() else path / RESULT_FILE
    run = path.parent if path.is_file() else path
    if result.is_file():
        return LoadedRun(run, _read_record(result, run))
    if not (path / RUN_FILE).is_file():
        raise LeaderboardError(f"{path}: not a run directory (no {RUN_FILE} or {RESULT_FILE})")
    status = run_status(path)
    if status.state == "failed":
        line = f"{path}: failed run ({status.reason}); fix the cause and finish it with "
        raise SkipError(path, "failed", line + "`harness compare ... --resume`, or remove it")
    if status.state != "unfinished":
        raise SkipError(path, cast(SkipKind, status.state), status.reason)  # names the file
    if status.total is not None and status.done == status.total:
        how_far = f"all {status.done} rounds finished but the final benchmarks were not written"
    else:
        how_far = status.label().removeprefix("unfinished ") + " rounds finished"
    line = (
        f"{path}: unfinished run, no {RESULT_FILE} yet ({how_far}); finish it with "
        "`harness compare ... --resume` or leave it out of the board"
    )
    raise SkipError(path, "unfinished", line)


def _runs_under(root: Path) -> tuple[list[Path], list[Path]]:
    """Directories at or under `root` holding a run file, in path order; and the links to
    directories that lead to runs, which are not followed, as no board command follows a link
    out of the root it was given (a bundle or a site would carry what it points to).
    Published sites are left out whole: their copies of run files are not runs (a site may be
    published inside a runs root)."""
    found: list[Path] = []
    links: list[Path] = []
    for here, subdirs, files in os.walk(root):
        if MANIFEST in files and is_site(Path(here)):
            subdirs.clear()
            continue
        subdirs.sort()
        if RUN_FILE in files or RESULT_FILE in files:
            found.append(Path(here))
            continue  # links inside a run (a backend's convenience links) are not runs
        links.extend(p for d in subdirs if (p := Path(here, d)).is_symlink() and _leads_to_runs(p))
    return sorted(found), sorted(links)


def _leads_to_runs(link: Path, depth: int = 3) -> bool:
    """Whether `link` is a run directory or holds one within `depth` levels (a runs root is
    `<experiment>/<designer>/seed-<n>`)."""
    for here, subdirs, files in os.walk(link, followlinks=False):
        if RUN_FILE in files or RESULT_FILE in files:
            return True
        if len(Path(here).relative_to(link).parts) >= depth:
            subdirs.clear()
    return False


def _link_line(link: Path) -> str:
    target = os.path.realpath(link)
    return (
        f"{link}: a link to {target}, not followed (a board reads only the runs inside the "
        f"paths it is given); pass {target} itself to include its runs"
    )


def _is_run(path: Path) -> bool:
    return (path / RUN_FILE).is_file() or (path / RESULT_FILE).is_file()


def _read_record(source: Path, run: Path) -> ResultRecord:
    try:
        record = read_result(source)
    except RunFileError as err:
        kind: SkipKind = (
            "other-version" if err.problem in ("other-version", "older-form") else "unreadable"
        )
        todo = {
            "other-version": "build this board with the version that wrote it",
            "older-form": err.todo,
        }.get(err.problem, f"{err.todo}, or remove the run")
        raise SkipError(run, kind, f"{run}: {source.name} {err.wrong}; {todo}") from None
    _check_verdicts(record, run)
    return record


def _check_verdicts(record: ResultRecord, run: Path) -> None:
    """Each suite result must hold together by its task (`Task.result_problem`): every verdict
    carries a flag for every rate its suite version gives, and every count the record holds is
    what those verdicts give -- a board shows both, so an edited count (or an edited verdict)
    is refused rather than shown."""
    task = recorded_task(record.experiment.as_dict())
    for name, suite in record.suites.items():
        problem = task.result_problem(suite)
        if problem is not None:
            line = (
                f"{run}: suite {name} in {RESULT_FILE}: {problem} (the record was edited or "
                f"damaged); remove {RESULT_FILE} and `--resume` the run"
            )
            raise SkipError(run, "unreadable", line)
