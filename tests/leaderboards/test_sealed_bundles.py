"""Sealed bundles and sites: a link planted in a shared runs root never carries a file from
outside it into a bundle or a published site; hostile zip members are refused by type; an
output that cannot be written is refused in one line before any work.

Every kind of file a run holds gets a link to a file outside the runs root: its records, its
round files, its answers, its checkpoint, and the directories above them. The outside file
holds a secret (as /etc/shadow would) or, to show that the link alone refuses it, a valid
copy of the run's own file.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from markupsafe import escape
from typer.testing import CliRunner

from envdesign_common import write_problem
from harness_cli import app
from leaderboards import LeaderboardError, load_runs, publish_site
from leaderboards.bundles import (
    MANIFEST_FILE,
    BundleError,
    bundle_runs,
    merge_bundles,
    verify_bundle,
)
from leaderboards.bundles.sealed import SealError, sealed_again
from run_records import answers_file

runner = CliRunner()
RUN = "quick/random/seed-0"
MEMBER = f"runs/{RUN}"
SECRET = b"root:$6$sealed$NOT-A-RUN-FILE-outside-the-runs-root:19700:0:99999:7:::\n"
ANSWERS = answers_file("3agents")
LINKED_FILES = ["run.json", "result.json", "round-000/round.json", "round-000/config.yaml",
                "round-000/curves.jsonl", ANSWERS]  # fmt: skip
"""Every file a bundle and a site take from a run."""
LINKED_DIRS = ["round-000", "answers"]


@pytest.fixture
def root(compare_root: Path, tmp_path: Path) -> Path:
    """A runs root holding a copy of one run of the tiny comparison."""
    shutil.copytree(compare_root / RUN, tmp_path / "runs" / RUN)
    return tmp_path / "runs"


def plant(root: Path, name: str, *, secret: bool = True) -> Path:
    """Put a link to a file (or directory) outside `root` in place of the run's `name`: the
    outside file holds `SECRET`, or is a valid copy of the run's own file."""
    inside = root / RUN / name
    outside = root.parent / "outside" / name
    outside.parent.mkdir(parents=True, exist_ok=True)
    if inside.is_dir():
        shutil.copytree(inside, outside)
        for child in outside.rglob("*"):
            if child.is_file() and secret:
                child.write_bytes(SECRET)
        shutil.rmtree(inside)
    else:
        outside.write_bytes(SECRET if secret else inside.read_bytes())
        inside.unlink()
    inside.symlink_to(outside)
    return inside


def one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    return lines[0]


def site_files(site: Path) -> dict[str, bytes]:
    return {str(p.relative_to(site)): p.read_bytes() for p in site.rglob("*") if p.is_file()}


@pytest.mark.parametrize(
    ("name", "secret"),
    [(name, secret) for name in [*LINKED_FILES, *LINKED_DIRS] for secret in (True, False)
     if (name, secret) != ("result.json", True)],  # a secret reads as no record: always refused
    ids=lambda value: value if isinstance(value, str) else ("secret" if value else "valid-copy"),
)  # fmt: skip
def test_a_link_out_of_the_run_refuses_the_bundle(root: Path, name: str, secret: bool) -> None:
    plant(root, name, secret=secret)
    out = root.parent / "runs.zip"
    with pytest.raises(BundleError) as caught:
        bundle_runs([root], out)
    line = one_line(str(caught.value))
    assert not out.exists()
    directory = name in LINKED_DIRS
    assert line.startswith(f"{root / RUN / name}{'/' if directory else ' '}"), line
    assert (f"lies under {name}, which is a symbolic link, not a directory" if directory
            else f"{name} is a symbolic link, not a regular file") in line  # fmt: skip
    assert line.endswith("put back the file the run wrote, or leave the run out")


def test_the_cli_names_the_linked_file_and_writes_nothing(root: Path) -> None:
    plant(root, "run.json")
    out = root.parent / "runs.zip"
    made = runner.invoke(app, ["leaderboard", "bundle", str(root), "--out", str(out)],
                         env={"COLUMNS": "400"})  # fmt: skip
    assert made.exit_code == 2, made.output
    assert one_line(made.output) == (
        f"error: {root / RUN / 'run.json'} is a symbolic link, not a regular file: a bundle "
        "carries only the run's own regular files, read as what they are; put back the file "
        "the run wrote, or leave the run out"
    )
    assert not out.exists()


def test_a_linked_checkpoint_or_run_directory_never_travels(root: Path, tmp_path: Path) -> None:
    """Checkpoints are never bundled nor copied; a linked run directory is not followed: a
    bundle refuses it in one line (it leaves no run out quietly), a site lists it as skipped."""
    plant(root, "round-000/checkpoint/cpu_policy.pt")
    elsewhere = tmp_path / "outside" / "seed-1"
    shutil.copytree(root / RUN, elsewhere, symlinks=True)
    (elsewhere / "round-000" / "checkpoint" / "cpu_policy.pt").unlink()
    (elsewhere / "run.json").write_bytes(SECRET)
    (root / "quick" / "random" / "seed-1").symlink_to(elsewhere)
    out = tmp_path / "runs.zip"
    with pytest.raises(LeaderboardError, match=r"seed-1: a link to .*seed-1, not followed"):
        bundle_runs([root], out)
    summary = bundle_runs([root / RUN], out)
    assert [run.name for run in summary.manifest.runs] == [RUN]
    assert SECRET not in _unpacked(out) and verify_bundle(out).ok
    runs = load_runs([root])
    assert [s.kind for s in runs.skipped] == ["link"]
    site = publish_site(runs, tmp_path / "site", resamples=100)
    assert len(site.board.runs) == 1 and site.withheld == ()
    assert not any(SECRET in data for data in site_files(tmp_path / "site").values())


def _unpacked(bundle: Path) -> bytes:
    with zipfile.ZipFile(bundle) as archive:
        return b"".join(archive.read(info) for info in archive.infolist())


def test_the_site_leaves_out_every_linked_file_and_says_so(
    compare_root: Path, tmp_path: Path
) -> None:
    """One publish: seed 0 with a link in place of every file but its result, seed 1 with its
    result linked (left out whole); neither outside file's bytes reach the site."""
    root = tmp_path / "runs"
    shutil.copytree(compare_root / "quick" / "random", root / "quick" / "random")
    for name in LINKED_FILES:
        if name != "result.json":
            plant(root, name)
    seed1 = root / "quick" / "random" / "seed-1" / "result.json"
    outside_result = root.parent / "outside" / "seed-1-result.json"
    seed1.rename(outside_result)  # a valid record: only the link keeps it out
    seed1.symlink_to(outside_result)

    out = tmp_path / "site"
    published = runner.invoke(app, ["leaderboard", "publish", str(root), "--out", str(out),
                                    "--resamples", "100"], env={"COLUMNS": "400"})  # fmt: skip
    assert published.exit_code == 0, published.output
    skipped = [line for line in published.output.splitlines() if line.startswith("skipped:")]
    assert skipped[0] == (
        f"skipped: {seed1} is a symbolic link, not a regular file; the run is left out of the "
        "site: put back the file the run wrote"
    )
    expected = [f"skipped: {root / RUN / name} is a symbolic link, not a regular file; not "
                "copied into the site" for name in LINKED_FILES if name not in (
                    "result.json", ANSWERS)]  # fmt: skip
    assert skipped[1:] == expected
    files = site_files(out)
    assert not any(SECRET in data for data in files.values())
    assert "files/random-seed-1/result.json" not in files
    assert "files/random-seed-0/result.json" in files
    assert "files/random-seed-0/run.json" not in files
    page = files["runs/random-seed-0.html"].decode()
    assert "run.json: not copied: is a symbolic link, not a regular file" in page
    assert "round-000/curves.jsonl: not copied: is a symbolic link" in page
    record = load_runs([compare_root / RUN])[0].record
    shown = str(escape(record.rounds[0].config.to_yaml()))
    assert f"<pre>{shown}</pre>" in page, "a withheld config.yaml: the record's configuration"
    assert SECRET.decode() not in page
    index = files["index.html"].decode()
    assert "seed-1/result.json is a symbolic link" in index
    assert len(json.loads(files["board.json"])["runs"]) == 1


def test_files_that_are_not_what_they_say_are_refused(root: Path, tmp_path: Path) -> None:
    """No link at all: a FIFO, a record that does not read, curves that are not steps."""
    curves = root / RUN / "round-000" / "curves.jsonl"
    curves.unlink()
    os.mkfifo(curves)
    with pytest.raises(BundleError, match=r"curves\.jsonl is a FIFO, not a regular file"):
        bundle_runs([root], tmp_path / "a.zip")
    curves.unlink()
    curves.write_text('{"step": 0}\n')
    with pytest.raises(BundleError, match=r"curves.jsonl line 1 is not a training step \(epoch"):
        bundle_runs([root], tmp_path / "a.zip")
    curves.write_bytes(b"")
    stamp = (root / RUN / "run.json").read_bytes()
    (root / RUN / "run.json").write_bytes(SECRET)
    with pytest.raises(BundleError, match=r"run\.json is not valid JSON \(line 1"):
        bundle_runs([root], tmp_path / "a.zip")
    (root / RUN / "run.json").write_bytes(stamp)
    (root / RUN / "round-000" / "config.yaml").write_text("sizes: 7\n")
    with pytest.raises(BundleError, match=r"config\.yaml differs from the sha256 its round\.json"):
        bundle_runs([root], tmp_path / "a.zip")
    record = json.loads((root / RUN / "result.json").read_text())
    record["rounds"][0]["files"] = {}  # a record vouching for no file: read as a config
    (root / RUN / "result.json").write_text(json.dumps(record))
    with pytest.raises(BundleError, match=r"config\.yaml is not a generator config \(config"):
        bundle_runs([root], tmp_path / "a.zip")
    assert not (tmp_path / "a.zip").exists()


# -- verify and merge: hostile members -------------------------------------------------------


@pytest.fixture(scope="module")
def bundle(compare_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sealed") / "random.zip"
    bundle_runs([compare_root / RUN], out)
    return out


def rewritten(bundle: Path, out: Path, member: str, data: bytes, mode: int | None = None,
              dos: int = 0) -> Path:  # fmt: skip
    """`bundle` with `member` holding `data` (its manifest entry made to fit, as a forger
    would), given the Unix `mode` and MS-DOS attribute bits `dos`."""
    with zipfile.ZipFile(bundle) as archive:
        entries = {info.filename: archive.read(info) for info in archive.infolist()}
    manifest = json.loads(entries[MANIFEST_FILE])
    manifest["files"][member] = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    entries[MANIFEST_FILE] = json.dumps(manifest).encode()
    entries[member] = data
    with zipfile.ZipFile(out, "w") as archive:
        for name, blob in entries.items():
            info = zipfile.ZipInfo(name)
            info.create_system = 3
            kind = mode if name == member and mode is not None else stat.S_IFREG | 0o644
            info.external_attr = (kind << 16) | (dos if name == member else 0)
            archive.writestr(info, blob)
    return out


@pytest.mark.parametrize(
    ("mode", "dos", "what"),
    [
        (stat.S_IFLNK | 0o777, 0, "is a symbolic link (mode lrwxrwxrwx), not a plain file"),
        (stat.S_IFIFO | 0o644, 0, "is a FIFO (mode prw-r--r--), not a plain file"),
        (stat.S_IFBLK | 0o600, 0, "is a block device (mode brw-------), not a plain file"),
        (stat.S_IFSOCK | 0o755, 0, "is a socket (mode srwxr-xr-x), not a plain file"),
        (stat.S_IFDIR | 0o755, 0, "is a directory, not a plain file"),
        (None, 0x10, "is a directory, not a plain file"),
    ],
    ids=["symlink", "fifo", "block-device", "socket", "directory-mode", "dos-directory"],
)
def test_verify_and_merge_refuse_members_that_are_not_plain_files(
    bundle: Path, tmp_path: Path, mode: int | None, dos: int, what: str
) -> None:
    hostile = rewritten(bundle, tmp_path / "hostile.zip", f"{MEMBER}/run.json", b"/etc/shadow",
                        mode, dos)  # fmt: skip
    board = tmp_path / "board"
    expected = f"{hostile}: member '{MEMBER}/run.json' {what}; refused as unsafe"
    for call in (lambda: verify_bundle(hostile), lambda: merge_bundles([hostile], board)):
        with pytest.raises(BundleError) as caught:
            call()
        assert one_line(str(caught.value)) == expected
    assert not board.exists()
    verified = runner.invoke(app, ["leaderboard", "verify", str(hostile)], env={"COLUMNS": "400"})
    assert verified.exit_code == 2 and one_line(verified.output) == f"error: {expected}"


@pytest.mark.parametrize(
    ("member", "data", "what"),
    [
        ("run.json", SECRET, "member run.json is not valid JSON (line 1, column 1"),
        ("round-000/curves.jsonl", SECRET, "member round-000/curves.jsonl line 1 is not a "),
        ("round-000/config.yaml", SECRET, "member round-000/config.yaml differs from the sha256 "),
        (
            "round-000/checkpoint/cpu_policy.pt",
            SECRET,
            "member round-000/checkpoint/cpu_policy.pt is no file a bundle carries",
        ),
        ("notes.txt", b"hello", "member notes.txt is no file a bundle carries"),
    ],
)
def test_verify_and_merge_refuse_plain_members_that_are_not_run_files(
    bundle: Path, tmp_path: Path, member: str, data: bytes, what: str
) -> None:
    """What a bundle written before sealing could hold (a linked file's bytes, with checksums
    that match) is refused by what it is, naming the member."""
    hostile = rewritten(bundle, tmp_path / "hostile.zip", f"{MEMBER}/{member}", data)
    board = tmp_path / "board"
    for call in (lambda: verify_bundle(hostile), lambda: merge_bundles([hostile], board)):
        with pytest.raises(BundleError) as caught:
            call()
        line = one_line(str(caught.value))
        assert line.startswith(f"{hostile}: run {RUN}: {what}") and line.endswith("; refused")
    assert not board.exists()


# -- an output that cannot be written ---------------------------------------------------------


@pytest.fixture
def read_only_dir(tmp_path: Path) -> Iterator[Path]:
    """A directory no file can be created in: made read-only for a user; for root, whom no
    permission stops, `/proc`, where nobody can create a file."""
    if os.geteuid() == 0:
        yield Path("/proc")
        return
    here = tmp_path / "read-only"
    here.mkdir()
    here.chmod(0o555)
    yield here
    here.chmod(0o755)


@pytest.mark.parametrize(
    ("command", "refusal"),
    [
        (
            ["bundle", "--out", "quick.zip"],
            "error: cannot write the bundle to quick.zip: {problem}; pass --out a path in a "
            "writable directory",
        ),
        (
            ["publish", "--out", "site"],
            "error: cannot write the site to site: {problem}; pass another --out",
        ),
    ],
    ids=["bundle", "publish"],
)
def test_an_unwritable_output_is_refused_in_one_line_before_any_work(
    read_only_dir: Path, root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    command: list[str], refusal: str,
) -> None:  # fmt: skip
    """From a read-only working directory, with real runs and with a runs path that does not
    even exist: the same refusal for both shows the output is checked before any run is read."""
    monkeypatch.chdir(read_only_dir)
    name, *options = command
    for runs in (root, tmp_path / "no-runs"):
        result = runner.invoke(app, ["leaderboard", name, str(runs), *options],
                               env={"COLUMNS": "400"})  # fmt: skip
        assert result.exit_code == 2, result.output
        line = one_line(result.output)
        problem = write_problem(read_only_dir / options[-1])
        assert problem is not None and str(read_only_dir) in problem
        assert line == refusal.format(problem=problem), line


def test_a_bundle_out_that_is_a_directory_is_refused(root: Path, tmp_path: Path) -> None:
    with pytest.raises(BundleError) as caught:
        bundle_runs([root], tmp_path)
    assert one_line(str(caught.value)) == (
        f"--out {tmp_path} is a directory; name the bundle file, e.g. --out {tmp_path / 'runs.zip'}"
    )


@pytest.mark.parametrize("name", ["round-000/curves.jsonl", ANSWERS])
def test_a_file_swapped_after_its_check_is_refused_when_the_bundle_is_written(
    root: Path, name: str
) -> None:
    """A bundle checks every file, keeps only its checksum, and reads it again as it writes
    it: a file replaced in between (by a link, or other bytes) refuses the bundle."""
    run = load_runs([root])[0]
    checked = hashlib.sha256((run.path / name).read_bytes()).hexdigest()
    assert sealed_again(run, name, checked) == (run.path / name).read_bytes()
    with (run.path / name).open("ab") as f:
        f.write(b"\n")
    with pytest.raises(SealError, match="changed while the bundle was written"):
        sealed_again(run, name, checked)
    plant(root, name, secret=False)
    with pytest.raises(SealError, match="link"):
        sealed_again(run, name, checked)
