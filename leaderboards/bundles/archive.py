"""The bundle file: a zip archive written byte for byte the same for the same members, and
unpacked only as far as its manifest vouches for.

Why zip rather than tar.gz: a zip's central directory lists every member with its declared
size, type and compression before a single byte is inflated, so count, size, type and name
limits are checked up front and each member is then read by name -- only the ones the
manifest lists -- with its CRC checked by `zipfile` and its sha256 by us; a tar.gz must be
inflated from the start to find its members. Answers, already gzipped, are stored as they
are; JSON members are deflated.

Determinism: members in sorted order after the manifest, each with the same fixed time
(1980-01-01), Unix permissions 0644 and no owner, so the same runs give the same bytes.

Safety: a hostile archive is refused in one line before anything is written: names that are
absolute or hold `..` or odd characters, members whose Unix mode or MS-DOS attributes make
them anything but a plain file (a directory, a symbolic link, a FIFO, a socket, a device:
each named), encrypted or oddly compressed members, duplicate names, more than
`MAX_MEMBERS` members, more than `MAX_TOTAL_BYTES` in all, members the manifest does not list
(or listed ones it lacks), and members whose size or sha256 differs from the manifest's.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import zipfile
import zlib
from collections.abc import Callable, Mapping
from pathlib import Path

from pydantic import ValidationError

from envdesign_common import atomic_writer
from leaderboards.bundles.errors import BundleError
from leaderboards.bundles.manifest import (
    BUNDLE_FORMAT,
    MANIFEST_FILE,
    BundleManifest,
    name_problem,
)

MAX_MEMBERS = 20_000
"""Members of one bundle (a quick-preset run is about 5 plus 3 per round)."""
MAX_TOTAL_BYTES = 4 << 30
"""Bytes of one bundle, unpacked (a quick-preset run is about 2.5 MB)."""
MAX_MANIFEST_BYTES = 16 << 20
FIXED_TIME = (1980, 1, 1, 0, 0, 0)
"""The earliest time a zip can hold: every member gets it, so bytes never depend on when."""
_UNIX = 3
_DOS_DIRECTORY = 0x10
_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)


def write_archive(out: Path, manifest: BundleManifest, member: Callable[[str], bytes]) -> int:
    """Write the bundle atomically, member by member (`member(name)` gives each file the
    manifest lists, in sorted order), so a bundle of a thousand runs never sits in memory
    whole; its size in bytes (the same bytes for the same manifest and members)."""
    try:
        with atomic_writer(out) as f, zipfile.ZipFile(f, "w") as archive:
            _add(archive, MANIFEST_FILE, (manifest.model_dump_json(indent=2) + "\n").encode())
            for name in sorted(manifest.files):
                _add(archive, name, member(name))
    except OSError as err:  # a full disk; an unwritable place is refused before any work
        raise BundleError(f"cannot write the bundle to {out}: {err.strerror or err}; "
                          "pass --out a path with room for it") from None  # fmt: skip
    return out.stat().st_size


def _add(archive: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name, date_time=FIXED_TIME)
    info.create_system = _UNIX
    info.external_attr = (stat.S_IFREG | 0o644) << 16
    stored = name.endswith(".gz")
    info.compress_type = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
    archive.writestr(info, data, compresslevel=None if stored else 6)


def unpack(bundle: Path, into: Path) -> BundleManifest:
    """Check `bundle` and write the members its manifest lists under `into` (a new directory);
    its manifest. `BundleError` (one line) for anything the module docstring refuses."""
    size = _size(bundle)
    if size > MAX_TOTAL_BYTES:
        raise BundleError(f"{bundle} is {size} bytes, above the limit of {MAX_TOTAL_BYTES}")
    try:
        with zipfile.ZipFile(bundle) as archive:
            infos = _checked_members(bundle, archive)
            manifest = _manifest(bundle, archive, infos)
            into.mkdir(parents=True)
            for name, entry in sorted(manifest.files.items()):
                data = _read(bundle, archive, infos[name], entry.size)
                if hashlib.sha256(data).hexdigest() != entry.sha256:
                    raise BundleError(
                        f"{bundle}: member {name} does not match its sha256 in {MANIFEST_FILE} "
                        "(damaged or edited); ask its sender for the bundle again"
                    )
                _write_new(into / name, data)
    except (zipfile.BadZipFile, zlib.error, EOFError) as err:
        raise BundleError(f"{bundle} is not a readable zip archive ({err})") from None
    return manifest


def _size(bundle: Path) -> int:
    try:
        return bundle.stat().st_size
    except OSError as err:
        raise BundleError(f"{bundle} cannot be read ({err.strerror or err})") from None


def _checked_members(bundle: Path, archive: zipfile.ZipFile) -> dict[str, zipfile.ZipInfo]:
    infos = archive.infolist()
    if len(infos) > MAX_MEMBERS + 1:
        raise BundleError(f"{bundle} has {len(infos)} members, above {MAX_MEMBERS}")
    if sum(info.file_size for info in infos) > MAX_TOTAL_BYTES:
        raise BundleError(f"{bundle} unpacks to more than the limit of {MAX_TOTAL_BYTES} bytes")
    by_name: dict[str, zipfile.ZipInfo] = {}
    for info in infos:
        problem = _member_problem(info)
        if problem is not None:
            raise BundleError(f"{bundle}: member {info.filename!r} {problem}; refused as unsafe")
        if info.filename in by_name:
            raise BundleError(f"{bundle}: member {info.filename!r} appears twice; refused")
        by_name[info.filename] = info
    return by_name


def _member_problem(info: zipfile.ZipInfo) -> str | None:
    problem = name_problem(info.filename)
    if problem is not None:
        return problem
    kind = _member_kind(info)
    if kind is not None:
        return f"is {kind}, not a plain file"
    if info.flag_bits & 0x1:
        return "is encrypted"
    if info.compress_type not in _METHODS:
        return f"uses compression method {info.compress_type} (only stored or deflated)"
    return None


def _member_kind(info: zipfile.ZipInfo) -> str | None:
    """What a member that is not a plain file is, in words; None for a plain file. The file
    type is the Unix mode's (high 16 bits of the external attributes; none given reads as a
    plain file, as Python's and Windows' zip writers leave it) and the MS-DOS directory bit."""
    mode = info.external_attr >> 16
    kind = stat.S_IFMT(mode)
    if info.is_dir() or kind == stat.S_IFDIR or info.external_attr & _DOS_DIRECTORY:
        return "a directory"
    if kind in (0, stat.S_IFREG):
        return None
    names = {stat.S_IFLNK: "a symbolic link", stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket",
             stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device"}  # fmt: skip
    return f"{names.get(kind, 'of an unknown file type')} (mode {stat.filemode(mode)})"


def _manifest(
    bundle: Path, archive: zipfile.ZipFile, infos: Mapping[str, zipfile.ZipInfo]
) -> BundleManifest:
    if MANIFEST_FILE not in infos:
        raise BundleError(f"{bundle} has no {MANIFEST_FILE}: not a result bundle")
    raw = _read(bundle, archive, infos[MANIFEST_FILE], None, limit=MAX_MANIFEST_BYTES)
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise BundleError(f"{bundle}: {MANIFEST_FILE} is not JSON: not a result bundle") from None
    version = data.get("format_version") if isinstance(data, dict) else None
    if version != BUNDLE_FORMAT:
        raise BundleError(
            f"{bundle}: {MANIFEST_FILE} is of bundle format {version!r}; this version reads "
            f"format {BUNDLE_FORMAT}: verify it with the version that wrote it"
        )
    try:
        manifest = BundleManifest.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "manifest"
        raise BundleError(
            f"{bundle}: {MANIFEST_FILE} is not a bundle manifest ({where}: "
            f"{first['msg'].removeprefix('Value error, ')})"
        ) from None
    members = set(infos) - {MANIFEST_FILE}
    extra, missing = sorted(members - set(manifest.files)), sorted(set(manifest.files) - members)
    if extra:
        raise BundleError(f"{bundle}: member {extra[0]} is not listed in {MANIFEST_FILE}; refused")
    if missing:
        raise BundleError(f"{bundle}: {MANIFEST_FILE} lists {missing[0]}, which it lacks")
    return manifest


def _read(
    bundle: Path,
    archive: zipfile.ZipFile,
    info: zipfile.ZipInfo,
    size: int | None,
    *,
    limit: int = 0,
) -> bytes:
    """A member's bytes: exactly `size` of them when the manifest gives it, else at most
    `limit`."""
    cap = limit if size is None else size
    with archive.open(info) as member:
        data = member.read(cap + 1)
    if len(data) > cap or (size is not None and len(data) != size):
        what = f"not the {size} bytes its manifest entry says" if size is not None else "too big"
        raise BundleError(f"{bundle}: member {info.filename} is {what}; refused")
    return data


def _write_new(path: Path, data: bytes) -> None:
    """Create `path` (never an existing file or a link) with `data`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, 0o644)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
