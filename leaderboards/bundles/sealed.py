"""Sealed run files: what of a run directory may leave it, in a bundle or on a published site.

A runs root may be shared, and anyone who can write in it can plant a symbolic link
(`run.json -> /etc/shadow`), a device or a FIFO in a run directory: a bundle or site that
copied files as it found them would then carry a file only its publisher can read. So a file
leaves a run only when all of this holds:

* it is reached from the run directory without following any link: each part of its path is
  opened with `O_NOFOLLOW` relative to the descriptor of the directory above it, so neither a
  link in its place nor one in place of a directory above it (`round-000 -> /home/x`) is
  followed, nor one swapped in between the check and the read;
* it is a regular file, and the file read is the one checked (same device and inode);
* it is within its size bound, read at most one byte past it;
* it reads as what its name says, checked as cheaply as that can be done for thousands of
  runs: `run.json` and `round.json` by their `run_records` schemas, in the run's task's
  models; `result.json` by the reader that made the `LoadedRun` (it is validated before any
  file is copied, and only read again here); `config.yaml` by the sha256 its round record
  keeps (in a record that keeps none, as the run's task's configuration, bounded YAML);
  `curves.jsonl` as training steps, one JSON line each; an answers file by the sha256 its
  `result.json` keeps (`verify` re-scores every answer in it).

Anything else is a `SealError`, one line naming the file: a bundle refuses it (a bundle is
evidence, and one with a file left out would not be the run), the site leaves the file out
and says so on the terminal and on the run's page.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable
from pathlib import Path

from pydantic import ValidationError

from envdesign_common import MAX_FILE_BYTES
from envdesign_common.field_errors import ConfigError, config_error
from envdesign_common.yaml_mappings import load_mapping
from leaderboards.errors import LeaderboardError
from leaderboards.readers import LoadedRun
from run_records import (
    ANSWERS_DIR,
    CONFIG_FILE,
    RESULT_FILE,
    ROUND_FILE,
    RUN_FILE,
    RunFileError,
    TrainStep,
    answers_file,
    one_line,
    parse_run_file,
    task_records,
)

CURVES_FILE = "curves.jsonl"
RAW_FILES = (RUN_FILE, RESULT_FILE)
"""A run's own records, beside its rounds."""
ROUND_FILES = (ROUND_FILE, CONFIG_FILE, CURVES_FILE)
"""What each `round-NNN/` gives away; its checkpoint never leaves."""
MAX_RECORD_BYTES = 64 << 20
"""A record or curves file (a paper-preset `result.json` is a few MB)."""
MAX_ANSWERS_FILE_BYTES = 256 << 20
"""An answers file as stored, gzipped (a whole quick-preset suite is well under 1 MB)."""

_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_FILE = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)

Check = Callable[[LoadedRun, Path, bytes], None]


class SealError(LeaderboardError):
    """A run file that may not leave its run; the message is one line naming it."""

    def __init__(self, path: Path, reason: str) -> None:
        reason = " ".join(reason.split())
        super().__init__(f"{path} {reason}")
        self.path, self.reason = path, reason


def run_file_names(run: LoadedRun) -> list[str]:
    """The files a bundle and a site take from `run` besides its answers, relative to it."""
    names = list(RAW_FILES)
    for r in run.record.rounds:
        names.extend(f"round-{r.round:03d}/{name}" for name in ROUND_FILES)
    return names


def sealed_file(run: LoadedRun, name: str) -> bytes | None:
    """The bytes of `name` (relative to the run directory) once sealed as the module docstring
    says; None when the run has no such file; `SealError` for anything else."""
    limit, check = _kind(name)
    data = _read_inside(run.path, name, limit)
    if data is not None:
        check(run, run.path / name, data)
    return data


def sealed_again(run: LoadedRun, name: str, sha256: str) -> bytes:
    """`name`'s bytes read once more, as sealed as the first time, and refused unless they are
    the bytes checked then (`sha256`): a writer that streams a large bundle checks every file
    first and reads each again when it writes it, so nothing unchecked slips in between."""
    limit, _ = _kind(name)
    path = run.path / name
    data = _read_inside(run.path, name, limit)
    if data is None:
        raise SealError(path, "was removed while the bundle was written")
    if hashlib.sha256(data).hexdigest() != sha256:
        raise SealError(path, "changed while the bundle was written")
    return data


def sealed_run_files(run: LoadedRun) -> dict[str, bytes]:
    """Every file of `run` that a bundle carries, by relative path: `run_file_names` where
    present and the stored answers of every suite its record scored (these must be there);
    `SealError` on the first file that may not leave."""
    files = {}
    for name in run_file_names(run):
        data = sealed_file(run, name)
        if data is not None:
            files[name] = data
    for suite in sorted(run.record.answers_sha256):
        name = answers_file(suite)
        data = sealed_file(run, name)
        if data is None:
            raise SealError(run.path / name, "is missing, though result.json records its sha256")
        files[name] = data
    return files


def _kind(name: str) -> tuple[int, Check]:
    base = name.rsplit("/", 1)[-1]
    if base in (RUN_FILE, ROUND_FILE):
        return MAX_RECORD_BYTES, _record
    if base == RESULT_FILE:
        return MAX_RECORD_BYTES, _loaded
    if base == CONFIG_FILE:
        return MAX_FILE_BYTES, _config
    if base == CURVES_FILE:
        return MAX_RECORD_BYTES, _curves
    if name.startswith(f"{ANSWERS_DIR}/"):
        return MAX_ANSWERS_FILE_BYTES, _answers
    raise ValueError(f"{name} is no file a bundle or site takes from a run")


def _record(run: LoadedRun, path: Path, data: bytes) -> None:
    try:
        parse_run_file(path, data, task_records(run.task))
    except RunFileError as err:
        raise SealError(path, err.wrong) from None


def _loaded(run: LoadedRun, path: Path, data: bytes) -> None:
    """`result.json` was validated when its run was loaded: it needs only to be sealed."""


def _config(run: LoadedRun, path: Path, data: bytes) -> None:
    vouched = next((r.files.get(CONFIG_FILE) for r in run.record.rounds
                    if f"round-{r.round:03d}" == path.parent.name), None)  # fmt: skip
    if vouched is not None:
        if hashlib.sha256(data).hexdigest() != vouched:
            raise SealError(path, f"differs from the sha256 its {ROUND_FILE} recorded")
        return
    try:
        run.task.config_model.model_validate(load_mapping(data.decode("utf-8"), path.name))
    except UnicodeDecodeError as err:
        raise SealError(path, f"is not UTF-8 text (byte {err.start})") from None
    except ValidationError as err:
        wrong = one_line(config_error(err, path.name, run.task.config_model))
        raise SealError(path, f"is not a generator config ({wrong})") from None
    except ConfigError as err:
        raise SealError(path, f"is not a generator config ({one_line(err)})") from None


def _curves(run: LoadedRun, path: Path, data: bytes) -> None:
    for n, line in enumerate(data.splitlines(), 1):
        try:
            TrainStep.model_validate_json(line)
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "line"
            reason = f"line {n} is not a training step ({where}: {first['msg']})"
            raise SealError(path, reason) from None


def _answers(run: LoadedRun, path: Path, data: bytes) -> None:
    suite = path.name.removesuffix(".jsonl.gz")
    recorded = run.record.answers_sha256.get(suite)
    if hashlib.sha256(data).hexdigest() != recorded:
        raise SealError(path, f"differs from the sha256 its {RESULT_FILE} recorded")


def _read_inside(run_dir: Path, name: str, limit: int) -> bytes | None:
    """`name`'s bytes, reached part by part from `run_dir` with no link followed; None when
    a part (or the run directory: a record built in memory) is missing."""
    path = run_dir / name
    parts = name.split("/")
    try:
        fd = os.open(run_dir, _DIRECTORY)
    except FileNotFoundError:
        return None
    except OSError as err:
        raise SealError(path, f"cannot be read ({err.strerror or err})") from None
    try:
        for depth, part in enumerate(parts[:-1], 1):
            _lstat(fd, part, path, parts[:depth])
            below = _open(part, _DIRECTORY | _NOFOLLOW, fd, path)
            os.close(fd)
            fd = below
        return _read_file(fd, parts[-1], path, limit)
    except FileNotFoundError:
        return None
    finally:
        os.close(fd)


def _lstat(fd: int, part: str, path: Path, above: list[str]) -> os.stat_result:
    """`part` of directory `fd`, not followed; `SealError` unless a directory (`above`: the
    parts down to it) or, with `above` empty, a regular file."""
    try:
        found = os.stat(part, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        raise
    except OSError as err:
        raise SealError(path, f"cannot be read ({err.strerror or err})") from None
    what = _what(found.st_mode)
    if above and not stat.S_ISDIR(found.st_mode):
        raise SealError(path, f"lies under {'/'.join(above)}, which is {what}, not a directory")
    if not above and not stat.S_ISREG(found.st_mode):
        raise SealError(path, f"is {what}, not a regular file")
    return found


def _read_file(fd: int, part: str, path: Path, limit: int) -> bytes:
    found = _lstat(fd, part, path, [])
    if found.st_size > limit:
        raise SealError(path, f"is {found.st_size} bytes, above the limit of {limit}")
    with os.fdopen(_open(part, _FILE, fd, path), "rb") as f:
        opened = os.fstat(f.fileno())
        if (opened.st_dev, opened.st_ino) != (found.st_dev, found.st_ino):
            raise SealError(path, "was replaced while it was read; try again")
        data = f.read(limit + 1)
    if len(data) > limit:
        raise SealError(path, f"holds more than the limit of {limit} bytes")
    return data


def _open(part: str, flags: int, fd: int, path: Path) -> int:
    try:
        return os.open(part, flags, dir_fd=fd)
    except FileNotFoundError:
        raise
    except OSError as err:  # a link or another file swapped in since it was checked
        raise SealError(path, f"cannot be read safely ({err.strerror or err})") from None


def _what(mode: int) -> str:
    """What a file is, in words, for the refusal line."""
    for test, words in (
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return words
    return "a regular file" if stat.S_ISREG(mode) else "of an unknown type"
