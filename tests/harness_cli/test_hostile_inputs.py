"""Hostile and huge inputs through the real `harness` command: refused in one short line, with
the memory and time that takes measured in the child process (`measured`).

Bounds are generous: a refusal needs well under a second and a few MB after the imports; the
bounds are 10 s and 100 MB, while a billion-laughs bomb that is built grows by gigabytes (the
child's 1 GB data cap stops it) and a 50 MB file that is parsed takes minutes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envdesign_common import MAX_FILE_BYTES
from tests.envdesign_common.yaml_bombs import laughs
from tests.harness_cli.measured import Measured, harness

MAX_SECONDS = 10.0
MAX_GROWN_MB = 100.0
TOO_LARGE = (
    "the YAML is too large: more than 100000 values, aliases (*name) counted at every use; "
    "write the values out or split the file"
)


def bomb(indent: str = "") -> str:
    """Anchors whose last, *i, stands for 9**9 leaves (a billion laughs), as YAML lines."""
    return laughs(9, indent)


def refused(result: Measured, *expected: str) -> str:
    """The one error line, after checking exit 2, no traceback, the bounds and `expected`."""
    assert result.code == 2, result.output
    assert "Traceback" not in result.output, result.output
    assert result.seconds < MAX_SECONDS, result
    assert result.grown_mb < MAX_GROWN_MB, result
    lines = result.lines()
    assert len(lines) == 1, result.output
    assert len(lines[0]) < 400, lines[0]
    for text in expected:
        assert text in lines[0], lines[0]
    return lines[0]


def test_a_bomb_in_a_wrong_typed_experiment_field(tmp_path: Path) -> None:
    path = tmp_path / "exp.yaml"
    path.write_text("name: x\n_defs:\n" + bomb("  ") + "rounds: *i\n")
    line = refused(harness("run", str(path), "--out", str(tmp_path / "runs"), "--dry-run"))
    assert line == f"error: {path}: {TOO_LARGE}"


def test_a_bomb_under_designer_options(tmp_path: Path) -> None:
    path = tmp_path / "exp.yaml"
    path.write_text(
        "name: x\nrounds: 1\nsamples_per_round: 50\ndesigners: [hand]\nbenchmarks: []\n"
        "designer_options:\n  hand:\n    schedule: *i\n    _defs:\n" + bomb("      ")
    )
    refused(harness("run", str(path), "--out", str(tmp_path / "runs")), str(path), TOO_LARGE)
    assert not (tmp_path / "runs").exists()  # refused before any run directory


@pytest.mark.parametrize("lenient", [False, True], ids=["strict", "lenient"])
def test_a_bomb_as_an_env_config(tmp_path: Path, lenient: bool) -> None:
    path = tmp_path / "env.yaml"
    path.write_text("samples: 16\nx:\n" + bomb("  ") + "sizes: *i\n")
    args = ["env", "generate", str(path), *(["--lenient"] if lenient else [])]
    assert refused(harness(*args)) == f"error: {path}: {TOO_LARGE}"


def test_a_bomb_as_the_hand_schedule(tmp_path: Path) -> None:
    schedule = tmp_path / "schedule.yaml"
    schedule.write_text("name: s\ndescription:\n" + bomb("  ") + "stages: *i\n")
    path = tmp_path / "exp.yaml"
    path.write_text(
        "name: x\nrounds: 1\nsamples_per_round: 50\ndesigners: [hand]\nbenchmarks: []\n"
        f"designer_options: {{hand: {{schedule: '{schedule}'}}}}\n"
    )
    line = refused(harness("run", str(path), "--out", str(tmp_path / "runs"), "--dry-run"))
    assert line == f"error: designer 'hand': curriculum {schedule}: {TOO_LARGE}"


def huge(path: Path, head: str, megabytes: int) -> Path:
    """`head` and then comment lines up to `megabytes` MB: valid YAML, just far too much."""
    with path.open("w") as f:
        f.write(head)
        line = "# " + "x" * 1021 + "\n"
        for _ in range(megabytes * 1024):
            f.write(line)
    return path


def test_a_50_mb_experiment_file_is_refused_unread(tmp_path: Path) -> None:
    path = huge(tmp_path / "exp.yaml", "name: x\ndesigners: [random]\n", 50)
    line = refused(harness("run", str(path), "--out", str(tmp_path / "runs")))
    assert line == (
        f"error: {path}: is 50.0 MB, more than the 4.0 MB limit for an input file; "
        "is this the right file?"
    )


def test_a_50_mb_env_config_is_refused_unread(tmp_path: Path) -> None:
    path = huge(tmp_path / "env.yaml", "samples: 16\n", 50)
    refused(harness("env", "generate", str(path)), str(path), "more than the 4.0 MB limit")


def test_a_5_mb_bad_config_gives_a_short_error(tmp_path: Path) -> None:
    path = tmp_path / "env.yaml"
    path.write_text("sizes:\n" + "".join(f"  k{i}: [1, 2]\n" for i in range(400_000)))
    assert path.stat().st_size > 5_000_000
    refused(harness("env", "generate", str(path)), "more than the 4.0 MB limit")


def test_a_config_with_thousands_of_bad_keys_gives_a_bounded_error(tmp_path: Path) -> None:
    # Under every bound, so it is read and validated: the message, not the reader, is bounded.
    path = tmp_path / "env.yaml"
    keys = "".join(f"wrong_key_{i}: {'v' * 60}\n" for i in range(20_000))
    path.write_text(f"samples: 16\n{keys}")
    result = harness("env", "generate", str(path))
    assert result.code == 2 and "Traceback" not in result.output
    lines = result.lines()
    assert len(lines) <= 22 and max(len(line) for line in lines) < 400, result.output
    assert lines[-1].strip().endswith("more bad fields")
    assert len(result.output) < 8000


def test_endless_devices_and_stdin_are_cut_at_the_limit(tmp_path: Path) -> None:
    expected = f"holds more than the {MAX_FILE_BYTES // (1 << 20)}.0 MB limit for an input file"
    line = refused(harness("env", "verify", "validation", "/dev/zero"), expected)
    assert line.startswith("error: /dev/zero: ")
    line = refused(harness("env", "verify", "validation", "-", stdin=Path("/dev/zero")), expected)
    assert line.startswith("error: stdin: ")
