"""Files written whole or not at all, checkpoints streamed by torch included."""

from __future__ import annotations

import errno
import hashlib
from pathlib import Path

import pytest
import torch

from envdesign_common import atomic_write_bytes, atomic_writer, is_temporary
from tests.envdesign_common.killed_save import kill_mid_save, temporaries


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_save_killed_midway_leaves_the_old_checkpoint_whole(tmp_path: Path) -> None:
    target = tmp_path / "cpu_policy.pt"
    with atomic_writer(target) as f:
        torch.save({"weights": torch.ones(1000)}, f)
    old = digest(target)
    left = kill_mid_save(target)
    assert left and all(is_temporary(p) for p in left)
    assert digest(target) == old
    assert torch.equal(torch.load(target, weights_only=True)["weights"], torch.ones(1000))


def test_a_first_save_killed_midway_leaves_no_checkpoint(tmp_path: Path) -> None:
    target = tmp_path / "cpu_policy.pt"
    left = kill_mid_save(target)
    assert not target.exists()
    assert [p.parent for p in left] == [tmp_path]


def test_a_save_that_raises_keeps_the_old_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "cpu_policy.pt"
    atomic_write_bytes(target, b"old")
    with pytest.raises(AttributeError), atomic_writer(target) as f:  # lambdas do not pickle
        torch.save({"weights": torch.ones(100_000), "hook": lambda: 0}, f)
    assert target.read_bytes() == b"old" and temporaries(tmp_path) == []


def test_a_refused_write_names_the_target_not_its_temporary(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(NotADirectoryError) as caught:
        atomic_write_bytes(blocker / "round.json", b"{}")
    assert caught.value.errno == errno.ENOTDIR
    assert caught.value.filename == str(blocker / "round.json")


def test_only_the_writers_own_temporaries_count_as_temporary() -> None:
    assert is_temporary(".cpu_policy.pt.0123456789abcdef0123456789abcdef.tmp")
    assert not is_temporary("cpu_policy.pt") and not is_temporary("notes.tmp")
