"""`bundle_runs`: finished runs, their stored answers and a manifest, in one file to send.

A bundle holds, per run, exactly what boards and the site read from a run directory --
`run.json` and `result.json`, and per round `round.json`, `config.yaml` and `curves.jsonl`
(`leaderboards.site.runs`: the site links them on the run's page) -- plus the run's stored
benchmark answers, which are what make it checkable: `verify_bundle` re-scores them.
Checkpoints never travel. Runs without stored answers cannot be re-scored by anyone, so they
are refused rather than bundled unverifiable.

Every file is sealed (`leaderboards.bundles.sealed`): a regular file inside its run, reached
with no link followed, within its size bound and reading as what it is; a run with any other
file (a link planted in a shared runs root, a device, a damaged record) refuses the bundle in
one line naming the file. The output is checked before any run is read, so a bundle that
could not be written is refused at once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from envdesign_common import git_commit, package_version, write_problem
from leaderboards.bundles.archive import write_archive
from leaderboards.bundles.errors import BundleError
from leaderboards.bundles.manifest import (
    BUNDLE_FORMAT,
    RUNS_DIR,
    BundleFile,
    BundleManifest,
    BundleRun,
    BundleSuite,
    run_name,
)
from leaderboards.bundles.sealed import SealError, sealed_again, sealed_run_files
from leaderboards.compat import require_one_task
from leaderboards.readers import LoadedRun, load_runs
from run_records import RESULT_FILE


@dataclass(frozen=True)
class BundleSummary:
    """A written bundle: where, what its manifest says, and how many bytes it took."""

    path: Path
    manifest: BundleManifest
    size: int


def bundle_runs(paths: Sequence[Path], out: Path) -> BundleSummary:
    """Bundle every finished run at or under `paths` into `out` (written atomically).

    Any run that is unfinished, unreadable or stores no answers refuses the whole bundle
    (`LeaderboardError`, one line naming the runs), so nothing is left out quietly; so does
    a run file that is not sealed, and an `out` that cannot be written (checked first).
    """
    check_bundle_out(out)
    runs = load_runs(paths, strict=True)
    require_one_task(runs, "a bundle")
    _refuse_unanswered(runs)
    files: dict[str, BundleFile] = {}
    sources: dict[str, tuple[LoadedRun, str]] = {}
    entries: dict[str, BundleRun] = {}
    suites: dict[str, BundleSuite] = {}
    for run in runs:
        entry = _entry(run)
        if entry.name in entries:
            raise BundleError(
                f"two runs would both be {entry.name} in the bundle (the second is {run.path}): "
                "bundle one of them"
            )
        entries[entry.name] = entry
        for relative, data in _run_files(run).items():  # checked, then only their checksums kept
            name = f"{RUNS_DIR}/{entry.name}/{relative}"
            files[name] = BundleFile(sha256=hashlib.sha256(data).hexdigest(), size=len(data))
            sources[name] = (run, relative)
        _add_suites(suites, run)
    manifest = BundleManifest(
        format_version=BUNDLE_FORMAT,
        package_version=package_version(),
        git_commit=git_commit(),
        runs=tuple(entries[name] for name in sorted(entries)),
        suites=tuple(suites[name] for name in sorted(suites)),
        files=dict(sorted(files.items())),
    )

    def member(name: str) -> bytes:
        run, relative = sources[name]
        try:
            return sealed_again(run, relative, files[name].sha256)
        except SealError as err:
            raise BundleError(f"{err}; bundle the runs again once nothing writes to them") from None

    return BundleSummary(out, manifest, write_archive(out, manifest, member))


def _refuse_unanswered(runs: Sequence[LoadedRun]) -> None:
    unanswered = [run.name for run in runs if not run.record.answers_sha256]
    if unanswered:
        raise BundleError(
            f"{len(unanswered)} of {len(runs)} runs store no benchmark answers, so their "
            f"verdicts cannot be re-scored: {', '.join(unanswered)}; run them again, or leave "
            "them out"
        )


def _entry(run: LoadedRun) -> BundleRun:
    record = run.record
    return BundleRun(
        name=run_name(record, run.path.name),
        kind=record.kind,
        designer=record.designer,
        seed=record.seed,
        experiment=record.experiment.name,
    )


def _run_files(run: LoadedRun) -> dict[str, bytes]:
    """What the bundle carries of one run, by path relative to its directory."""
    record = run.record
    if set(record.answers_sha256) != set(record.suites):
        raise BundleError(
            f"{run.name}: {RESULT_FILE} stores answers for suites "
            f"{', '.join(sorted(record.answers_sha256))} but has results for "
            f"{', '.join(sorted(record.suites))} (edited or damaged); run it again"
        )
    try:
        return sealed_run_files(run)
    except SealError as err:
        raise BundleError(
            f"{err}: a bundle carries only the run's own regular files, read as what they "
            "are; put back the file the run wrote, or leave the run out"
        ) from None


def check_bundle_out(out: Path) -> None:
    """Refuse, in one line naming it, an `out` the bundle could not be written to (a
    directory, a read-only place: `envdesign_common.write_problem`)."""
    if out.is_dir():
        raise BundleError(f"--out {out} is a directory; name the bundle file, e.g. --out "
                          f"{out / 'runs.zip'}")  # fmt: skip
    problem = write_problem(out)
    if problem is not None:
        raise BundleError(f"cannot write the bundle to {out}: {problem}; pass --out a path in "
                          "a writable directory")  # fmt: skip


def _add_suites(suites: dict[str, BundleSuite], run: LoadedRun) -> None:
    """The suites the run was scored on; every run of a bundle must share their versions."""
    for name, result in run.record.suites.items():
        if result.suite_version is None or result.content_sha256 is None:
            raise BundleError(
                f"{run.name}: suite {name} names no suite version or content checksum, so a "
                "bundle cannot say what it was scored on; leave the run out"
            )
        entry = BundleSuite(name=name, version=result.suite_version,
                            content_sha256=result.content_sha256)  # fmt: skip
        known = suites.setdefault(name, entry)
        if known != entry:
            raise BundleError(
                f"{run.name} was scored on suite {name} version {entry.version} (content "
                f"{entry.content_sha256[:12]}) but another run on version {known.version} "
                f"({known.content_sha256[:12]}): bundle runs of one benchmark version"
            )
