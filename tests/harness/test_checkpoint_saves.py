"""Checkpoints are saved whole before the round record that vouches for them; a save killed
midway costs only its round, and the attempt that trains it again clears what it left."""

from __future__ import annotations

import json
from pathlib import Path

from envdesign_common import is_temporary
from harness.backends.cpu import CpuBackend
from harness.run_dir import RunDir
from run_records import check_round, count_rounds, sha256_file
from tests.envdesign_common.killed_save import kill_mid_save
from tests.harness.test_loop import outcome, run, tiny


def test_a_cpu_save_leaves_only_its_files(tmp_path: Path) -> None:
    CpuBackend().save(tmp_path / "checkpoint")
    names = sorted(p.name for p in (tmp_path / "checkpoint").iterdir())
    assert names == ["cpu_policy.pt", "cpu_settings.json"]
    CpuBackend().load(tmp_path / "checkpoint")


def test_a_save_killed_in_a_run_costs_only_its_round(tmp_path: Path) -> None:
    experiment = tiny(rounds=2, samples_per_round=50, best_of=1)
    finished = run(experiment, "random", tmp_path / "runs")
    target = RunDir(tmp_path / "runs", experiment, "random", 0)
    checkpoint = target.checkpoint(1) / "cpu_policy.pt"
    vouched = json.loads((target.round_path(1) / "round.json").read_text())["files"]
    left = kill_mid_save(checkpoint)
    assert left, "the killed save left its temporary file"
    assert sha256_file(checkpoint) == vouched["checkpoint/cpu_policy.pt"]  # the old one, whole
    check_round(target.round_path(1), 1)  # the temporary file is no file of the round
    # As if killed while saving round 1 for the first time: its record was never written.
    (target.round_path(1) / "round.json").unlink()
    (target.path / "result.json").unlink()
    assert count_rounds(target.path, verify=True) == 1
    resumed = run(experiment, "random", tmp_path / "runs", resume=True)
    assert outcome(resumed) == outcome(finished)
    assert [p for p in target.path.rglob("*") if is_temporary(p)] == []
    assert count_rounds(target.path, verify=True) == 2
