"""`merge_bundles`: verified bundles' runs become run directories of a shared board.

Nothing on the board changes until every bundle has passed: each is unpacked into a staging
directory beside the board (same filesystem, so the final moves are renames; removed at the
end whatever happens) and verified
there (`check_bundle`: checksums, installed suites, re-scored verdicts); then its runs must be
compatible with the board's runs and with each other (`leaderboards.compat.check_compatible`),
and a run already on the board must hold the same files as the bundle's copy (it is then left
as it is; the board's copy may have more, such as checkpoints, which bundles never carry).
Only then are the runs moved in; a move that fails puts back the ones already moved.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from leaderboards.bundles.errors import BundleError
from leaderboards.bundles.manifest import RUNS_DIR
from leaderboards.bundles.verify import OnProgress, Verification, check_bundle
from leaderboards.compat import check_compatible
from leaderboards.errors import LeaderboardError
from leaderboards.readers import LoadedRun, load_runs
from run_records import RESULT_FILE, RUN_FILE, sha256_file


@dataclass(frozen=True)
class MergeResult:
    """Which runs a merge added, and which the board held already (same files)."""

    board: Path
    added: tuple[str, ...]
    already: tuple[str, ...]
    verifications: tuple[Verification, ...]


@dataclass(frozen=True)
class _Incoming:
    name: str
    staged: Path
    bundle: Path
    files: dict[str, str]
    """sha256 by path relative to the run directory."""


def merge_bundles(
    bundles: Sequence[Path],
    board: Path,
    *,
    pool_machines: bool = False,
    on_progress: OnProgress | None = None,
) -> MergeResult:
    """Add the runs of `bundles` to the board directory `board` (see the module docstring);
    `BundleError` or `LeaderboardError` (one line) leaves the board as it was."""
    if board.exists() and not board.is_dir():
        raise BundleError(f"{board} is not a directory; pass the board's run directory")
    staging = Path(tempfile.mkdtemp(prefix=f".{board.name}.merge-", dir=_nearest_dir(board)))
    try:
        checked = [check_bundle(b, staging / str(k), on_progress=on_progress)
                   for k, b in enumerate(bundles)]  # fmt: skip
        for verification in checked:
            if not verification.ok:
                raise BundleError(f"{verification.refusal()}; nothing was merged")
        incoming, already = _sorted_out(checked, staging, board)
        existing = _board_runs(board)
        new = [LoadedRun(item.bundle / item.name, run.record)
               for item, run in incoming]  # fmt: skip
        try:
            check_compatible([*existing, *new], pool_machines=pool_machines)
        except LeaderboardError as err:
            raise BundleError(f"not merged into {board}: {err}") from None
        _move_in([item for item, _ in incoming], board)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return MergeResult(board, tuple(item.name for item, _ in incoming), tuple(already),
                       tuple(checked))  # fmt: skip


def _sorted_out(
    checked: Sequence[Verification], staging: Path, board: Path
) -> tuple[list[tuple[_Incoming, LoadedRun]], list[str]]:
    """The runs to add, and the names of those the board (or an earlier bundle) holds."""
    incoming: dict[str, tuple[_Incoming, LoadedRun]] = {}
    already: list[str] = []
    for k, verification in enumerate(checked):
        for entry, run in zip(verification.manifest.runs, verification.runs, strict=True):
            files = {name: f.sha256 for name, f in verification.manifest.run_files(entry).items()}
            item = _Incoming(entry.name, staging / str(k) / RUNS_DIR / entry.name,
                             verification.bundle, files)  # fmt: skip
            earlier = incoming.get(entry.name)
            if earlier is not None:
                if earlier[0].files != files:
                    raise BundleError(
                        f"{item.bundle} and {earlier[0].bundle} both hold run {entry.name}, "
                        "with other contents: merge one of them"
                    )
                continue
            target = board / entry.name
            if target.exists():
                if not _holds(target, files):
                    raise BundleError(
                        f"{item.bundle}: run {entry.name} is already on the board at {target} "
                        "with other contents; remove it from the board first, or leave it out "
                        "of the bundle"
                    )
                already.append(entry.name)
                continue
            incoming[entry.name] = (item, run)
    return list(incoming.values()), already


def _holds(target: Path, files: dict[str, str]) -> bool:
    """Whether the run directory `target` has every file with the bundle's checksums."""
    for name, sha256 in files.items():
        path = target / name
        if not path.is_file() or sha256_file(path) != sha256:
            return False
    return True


def _board_runs(board: Path) -> list[LoadedRun]:
    """The finished runs already on the board (none when it is new or empty)."""
    if not board.is_dir() or not any(
        True for name in (RUN_FILE, RESULT_FILE) for _ in board.rglob(name)
    ):
        return []
    return list(load_runs([board]).runs)


def _nearest_dir(board: Path) -> Path:
    """The closest existing directory at or above the board's parent: staging there creates
    nothing that outlives a refusal, and it is on the filesystem the board will be on."""
    here = board.absolute().parent
    while not here.is_dir():
        here = here.parent
    return here


def _move_in(items: Sequence[_Incoming], board: Path) -> None:
    """Rename each staged run into the board; on a failure, move back those already moved."""
    moved: list[_Incoming] = []
    try:
        for item in items:
            target = board / item.name
            target.parent.mkdir(parents=True, exist_ok=True)
            os.rename(item.staged, target)
            moved.append(item)
    except OSError as err:
        for item in reversed(moved):
            os.rename(board / item.name, item.staged)
        raise BundleError(
            f"moving run {items[len(moved)].name} into {board} failed ({err.strerror or err}); "
            "the board is as it was"
        ) from None
