"""`verify_bundle`: is a bundle what it claims, judged only by the code installed here?

In order, each step refusing the bundle in one line (`BundleError`) when it fails:

1. the archive unpacks safely, its manifest is consistent (every member inside one run), and
   every member matches the manifest's size and sha256 (`leaderboards.bundles.archive`);
2. every run reads as a board would read it (`leaderboards.readers.load_run`) and sits where
   its record says it belongs; every suite it was scored on is installed here, by its task (as
   its record names it, with its settings), at the manifest's version and content checksum;
3. every run names for each suite the answers file the manifest lists and the suite version
   and checksum the manifest names;
4. every member of a run is a file a bundle carries and reads as what it is, as the writer
   sealed it (`leaderboards.bundles.sealed`): a bundle from elsewhere is no more trusted to
   hold run files than a shared runs root is.

Then every stored answer is re-scored (`leaderboards.bundles.rescore`) and compared with the
stored verdicts and report counts. Disagreements are not one error but a list: the result
says how many there were and keeps the first `SHOWN_MISMATCHES` of them.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from leaderboards.bundles.archive import unpack
from leaderboards.bundles.errors import BundleError
from leaderboards.bundles.manifest import (
    RUNS_DIR,
    BundleManifest,
    BundleRun,
    BundleSuite,
    run_name,
)
from leaderboards.bundles.rescore import differences, rescored
from leaderboards.bundles.sealed import SealError, run_file_names, sealed_run_files
from leaderboards.errors import LeaderboardError
from leaderboards.readers import LoadedRun, VerdictPool, load_run, share_verdicts
from run_records import RESULT_FILE, AnswersError, answers_file
from tasks import Suite, Task, TaskLoadError, UnknownTask

SHOWN_MISMATCHES = 5
"""Mismatches kept (and printed) in full; the rest are counted."""

OnProgress = Callable[[int, int], None]
"""Called with (instances re-scored so far, instances in the bundle)."""


@dataclass(frozen=True)
class Verification:
    """What verifying a bundle found."""

    bundle: Path
    manifest: BundleManifest
    runs: tuple[LoadedRun, ...]
    """The runs as unpacked (their paths lie where the bundle was unpacked)."""
    instances: int
    """Instances whose answers were re-scored (over all runs and suites)."""
    answers: int
    """Answers re-scored: the greedy one and every best-of sample of each instance."""
    mismatches: tuple[str, ...]
    """The first `SHOWN_MISMATCHES` disagreements, one line each."""
    mismatch_count: int

    @property
    def ok(self) -> bool:
        return self.mismatch_count == 0

    def summary(self) -> str:
        """One line: what was checked and whether it all agreed."""
        suites = ", ".join(f"{s.name} v{s.version}" for s in self.manifest.suites)
        checked = (
            f"{self.bundle}: {len(self.runs)} runs, {len(self.manifest.files)} files, "
            f"{self.instances} instances ({self.answers} answers) re-scored on {suites}"
        )
        if self.ok:
            return f"{checked}: every checksum, verdict and report count matches"
        return f"{checked}: {self.mismatch_count} mismatches with the stored verdicts"

    def refusal(self) -> str:
        """One line refusing the bundle for its mismatches (empty when it has none)."""
        if self.ok:
            return ""
        return (
            f"{self.bundle}: {self.mismatch_count} re-scored results disagree with the stored "
            f"ones (first: {self.mismatches[0]}); `harness leaderboard verify` lists them"
        )


def verify_bundle(bundle: Path, *, on_progress: OnProgress | None = None) -> Verification:
    """Unpack `bundle` into a temporary directory and verify it (see the module docstring)."""
    with tempfile.TemporaryDirectory(prefix="bundle-verify-") as tmp:
        return check_bundle(bundle, Path(tmp) / "bundle", on_progress=on_progress)


def check_bundle(
    bundle: Path, into: Path, *, on_progress: OnProgress | None = None
) -> Verification:
    """Unpack `bundle` under `into` (a new directory) and verify it; the runs stay there."""
    manifest = unpack(bundle, into)
    shared: VerdictPool = {}  # many runs' verdicts held once (`share_verdicts`)
    installed: InstalledSuites = {}
    runs = tuple(
        LoadedRun(checked.path, share_verdicts(checked.record, shared))
        for checked in (
            _checked_run(bundle, manifest, into, run, installed) for run in manifest.runs
        )
    )
    total = sum(len(s.verdicts) for run in runs for s in run.record.suites.values())
    shown: list[str] = []
    count = instances = answers = 0
    rescoring = _all_mismatches(runs)
    for entry, run in zip(manifest.runs, runs, strict=True):
        for _, stored in sorted(run.record.suites.items()):
            found = next(rescoring)
            count += len(found)
            shown.extend(f"{entry.name}: {line}" for line in found[: SHOWN_MISMATCHES - len(shown)])
            instances += len(stored.verdicts)
            answers += len(stored.verdicts) * (1 + stored.best_of_n)
            if on_progress is not None:
                on_progress(instances, total)
    return Verification(bundle, manifest, runs, instances, answers, tuple(shown), count)


def _all_mismatches(runs: tuple[LoadedRun, ...]) -> Iterator[list[str]]:
    """`_mismatches` of every run's suites (sorted), in order: re-scoring is the slow part of
    verifying, so one process per CPU re-scores while the results are taken in order."""
    tasks = [(run, name) for run in runs for name in sorted(run.record.suites)]
    workers = min(os.cpu_count() or 1, len(tasks))
    if workers < 2:
        yield from (_mismatches(run, name) for run, name in tasks)
        return
    with ProcessPoolExecutor(workers) as pool:
        yield from pool.map(_mismatches, *zip(*tasks, strict=True))


def _mismatches(run: LoadedRun, suite: str) -> list[str]:
    """How the run's stored result on `suite` differs from its re-scored answers."""
    try:
        fresh = rescored(run.path, run.record, suite)
    except AnswersError as err:
        return [str(err)]
    return [f"suite {suite} {line}" for line in differences(run.record.suites[suite], fresh)]


InstalledSuites = dict[tuple[int, str], Suite[Any]]
"""Suites loaded while verifying one bundle, by (id of the task object, suite name)."""


def _check_suite(
    bundle: Path, task: Task[Any, Any], suite: BundleSuite, installed: InstalledSuites
) -> None:
    """The manifest's `suite` is installed here, by `task`, at its version and checksum."""
    key = (id(task), suite.name)
    if key not in installed:
        if suite.name not in task.suite_names:
            raise BundleError(
                f"{bundle}: suite {suite.name} is not installed here (task {task.id} has "
                f"{', '.join(task.suite_names)}); verify it with a version that ships it"
            )
        installed[key] = task.suite(suite.name)
    here = installed[key]
    if here.version != suite.version:
        raise BundleError(
            f"{bundle}: suite {suite.name} is version {suite.version} in the bundle but "
            f"version {here.version} here; verify it with the version that scored it, "
            "or re-score the runs on this one"
        )
    if here.checksum != suite.content_sha256:
        raise BundleError(
            f"{bundle}: suite {suite.name}'s content checksum {suite.content_sha256[:12]} "
            f"differs from the installed suite's {here.checksum[:12]}: the answers were "
            "scored on other instances"
        )


def _checked_run(
    bundle: Path,
    manifest: BundleManifest,
    into: Path,
    entry: BundleRun,
    installed: InstalledSuites,
) -> LoadedRun:
    where = f"{bundle}: run {entry.name}"
    try:
        run = load_run(into / RUNS_DIR / entry.name)
        task = run.task
    except (LeaderboardError, UnknownTask, TaskLoadError) as err:
        raise BundleError(f"{bundle}: {err}") from None
    record = run.record
    owner = (run_name(record, Path(entry.name).name), record.kind, record.designer, record.seed)
    if owner != (entry.name, entry.kind, entry.designer, entry.seed):
        raise BundleError(
            f"{where} holds the record of {record.kind} {record.designer} seed {record.seed}, "
            "which belongs elsewhere (the manifest or the record was edited)"
        )
    if set(record.answers_sha256) != set(record.suites):
        raise BundleError(f"{where}: its {RESULT_FILE} does not store answers for every suite")
    files = manifest.run_files(entry)
    listed = {s.name: s for s in manifest.suites}
    for name in sorted(record.suites):
        if name in listed:
            _check_suite(bundle, task, listed[name], installed)
    suites = {s.name: (s.version, s.content_sha256) for s in manifest.suites}
    for name, result in record.suites.items():
        member = files.get(answers_file(name))
        if member is None or member.sha256 != record.answers_sha256[name]:
            raise BundleError(
                f"{where}: the bundle's {answers_file(name)} is not the file its {RESULT_FILE} "
                "recorded (missing or another checksum)"
            )
        if suites.get(name) != (result.suite_version, result.content_sha256):
            raise BundleError(
                f"{where}: suite {name} was scored on version {result.suite_version} "
                f"({(result.content_sha256 or '?')[:12]}), not on the manifest's suite"
            )
    _check_sealed(where, run, files)
    return run


def _check_sealed(where: str, run: LoadedRun, members: Mapping[str, object]) -> None:
    """Every member of the unpacked `run` is a file a bundle carries, reading as what it is."""
    carried = {*run_file_names(run), *(answers_file(s) for s in run.record.answers_sha256)}
    extra = sorted(set(members) - carried)
    if extra:
        raise BundleError(
            f"{where}: member {extra[0]} is no file a bundle carries (records, round files and "
            "answers); refused"
        )
    try:
        sealed_run_files(run)
    except SealError as err:
        member = err.path.relative_to(run.path).as_posix()
        raise BundleError(f"{where}: member {member} {err.reason}; refused") from None
