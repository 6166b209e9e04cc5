"""Reading real run directories: finished runs are loaded, every other run is one skipped line
naming it (and `strict` refuses them), and incompatible runs are refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from statistics import mean
from typing import Any

import pytest

from harness.experiment import ExperimentConfig
from harness.run_dir import RunDir
from leaderboards import LeaderboardError, build_board, load_runs
from run_records import size_mean

FAST = 400


def test_a_root_yields_every_run_and_the_board_reuses_size_mean(compare_root: Path) -> None:
    runs = load_runs([compare_root])
    assert sorted((r.record.designer, r.record.seed) for r in runs) == [
        ("random", 0), ("random", 1), ("uniform", 0), ("uniform", 1)]  # fmt: skip
    assert all(r.record.suites["3agents"].content_sha256 for r in runs)
    board = build_board(runs, resamples=FAST)
    for row in board.rows:
        mine = [r.record.suites["3agents"] for r in runs if r.record.designer == row.designer]
        assert row.suites["3agents"].get("valid").mean == pytest.approx(
            100 * mean(size_mean(s)[0] for s in mine), abs=1e-3)  # fmt: skip
        # the verdict-based size cuts agree with the record's own per-size report
        for detail in (d for d in board.details if d.designer == row.designer and d.cut == "size"):
            per_size = [s.greedy.per_size[int(detail.key)].valid_rate for s in mine]
            assert detail.rates.get("valid").mean == pytest.approx(100 * mean(per_size), abs=1e-3)
    assert {r.path for r in board.runs} == {str(r.path) for r in runs}


def test_result_files_and_overlapping_paths_are_read_once(compare_root: Path) -> None:
    one = compare_root / "quick" / "random" / "seed-0"
    runs = load_runs([one / "result.json", one, compare_root / "quick" / "random"])
    assert sorted(r.record.seed for r in runs) == [0, 1]


def _copy(compare_root: Path, tmp_path: Path) -> Path:
    target = tmp_path / "runs"
    shutil.copytree(compare_root, target)
    return target


def _edit(path: Path, change: Any) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def _one_line_error(paths: list[Path], *expected: str) -> str:
    with pytest.raises(LeaderboardError) as caught:
        build_board(load_runs(paths, strict=True), resamples=FAST)
    message = str(caught.value)
    assert "\n" not in message
    for part in expected:
        assert part in message, message
    return message


def test_unfinished_runs_say_how_far_they_got(compare_root: Path, tmp_path: Path) -> None:
    root = _copy(compare_root, tmp_path)
    run = root / "quick" / "uniform" / "seed-1"
    (run / "result.json").unlink()
    _one_line_error([root], str(run), "unfinished run", "all 1 rounds finished", "--resume")
    (run / "round-000" / "round.json").unlink()
    _one_line_error([run], str(run), "0 of 1 rounds finished")
    _one_line_error([tmp_path / "nowhere"], "nowhere: no such file or directory")
    _one_line_error([run / "round-000"], "no runs under it")


def test_another_schema_version_or_damaged_json_is_refused(
    compare_root: Path, tmp_path: Path
) -> None:
    root = _copy(compare_root, tmp_path)
    run = root / "quick" / "random" / "seed-0"
    _edit(run / "result.json", lambda d: d.update(schema_version="2"))
    _one_line_error([run], str(run), "result schema '2'", "reads schema '1'")
    (run / "result.json").write_text('{"schema_version": "1", ')
    _one_line_error([root], str(run), "not valid JSON", "line 1")


def test_mixed_benchmarks_or_configs_name_both_runs(compare_root: Path, tmp_path: Path) -> None:
    root = _copy(compare_root, tmp_path)
    a, b = root / "quick" / "random" / "seed-0", root / "quick" / "uniform" / "seed-1"

    def other_manifest(d: dict[str, Any]) -> None:
        d["suites"]["3agents"]["content_sha256"] = "0" * 64

    _edit(b / "result.json", other_manifest)
    _one_line_error([a, b], str(a), str(b), "different versions of benchmark 3agents")
    shutil.copy(compare_root / "quick" / "uniform" / "seed-1" / "result.json", b)
    _edit(b / "result.json", lambda d: d["experiment"].update(rounds=3))
    _one_line_error([a, b], str(a), str(b), "different experiments (rounds: 1 vs 3)")
    _edit(b / "result.json", lambda d: d.update(suites={"4agents": d["suites"]["3agents"]}))
    _one_line_error([a, b], "benchmark suites 3agents but", "has 4agents")


def test_the_same_run_twice_under_two_names_is_refused(compare_root: Path, tmp_path: Path) -> None:
    root = _copy(compare_root, tmp_path)
    shutil.copytree(root / "quick", root / "quick-again")
    _one_line_error([root], "are both random seed 0")


def _damage(path: Path, how: str) -> None:
    data = path.read_bytes()
    garbled = data[:100] + b"\xff\xfe" + data[102:]
    path.write_bytes({"truncate": data[: len(data) // 2], "empty": b"", "garble": garbled}[how])


def test_every_run_that_cannot_go_on_a_board_is_one_skipped_line(
    compare_root: Path, tmp_path: Path
) -> None:
    root = _copy(compare_root, tmp_path)
    runs = {(d, s): root / "quick" / d / f"seed-{s}" for d in ("random", "uniform") for s in (0, 1)}
    (runs["uniform", 1] / "result.json").unlink()
    (runs["random", 1] / "result.json").unlink()
    stamp = json.loads((runs["random", 1] / "run.json").read_text())
    experiment = ExperimentConfig.model_validate(stamp["experiment"])
    RunDir(root, experiment, "random", 1).write_failure(MemoryError("out of memory in training"))
    _damage(runs["uniform", 0] / "result.json", "garble")
    loaded = load_runs([root])
    assert [(r.record.designer, r.record.seed) for r in loaded] == [("random", 0)]
    kinds = {s.path: s.kind for s in loaded.skipped}
    assert kinds == {runs["uniform", 1]: "unfinished", runs["random", 1]: "failed",
                     runs["uniform", 0]: "unreadable"}  # fmt: skip
    lines = {s.kind: s.line for s in loaded.skipped}
    assert all("\n" not in line for line in lines.values())
    assert "all 1 rounds finished" in lines["unfinished"] and "--resume" in lines["unfinished"]
    assert "MemoryError: out of memory in training" in lines["failed"]
    assert "result.json is not UTF-8 text" in lines["unreadable"]
    assert len(build_board(loaded, resamples=FAST).runs) == 1
    _edit(runs["random", 0] / "result.json", lambda d: d.update(schema_version="2"))
    other = load_runs([root]).skipped
    assert {s.kind for s in other} == {"unfinished", "failed", "unreadable", "other-version"}
    assert not load_runs([root])


@pytest.mark.parametrize("how", ["truncate", "empty", "garble"])
def test_a_damaged_result_is_skipped_naming_the_file(
    compare_root: Path, tmp_path: Path, how: str
) -> None:
    root = _copy(compare_root, tmp_path)
    run = root / "quick" / "random" / "seed-0"
    _damage(run / "result.json", how)
    (skipped,) = load_runs([root]).skipped
    assert skipped.kind == "unreadable" and skipped.path == run
    assert skipped.line.startswith(f"{run}: result.json is ") and "damaged" in skipped.line
    assert skipped.line.endswith("`--resume` runs the final benchmarks again, or remove the run")
    _one_line_error([root], str(run), "result.json")


def test_a_link_to_runs_under_a_root_is_one_skipped_line_not_a_silent_gap(
    compare_root: Path, tmp_path: Path
) -> None:
    """No board command follows a link out of the root it is given; a link that leads to runs
    says so, with its target to pass instead. A link inside a run (a backend's convenience
    link to its model) is no run and says nothing."""
    root = tmp_path / "root"
    shutil.copytree(compare_root / "quick" / "random" / "seed-0", root / "quick" / "random"
                    / "seed-0")  # fmt: skip
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(compare_root / "quick" / "uniform", elsewhere / "uniform")
    (root / "quick" / "uniform").symlink_to(elsewhere / "uniform", target_is_directory=True)
    model_link = root / "quick" / "random" / "seed-0" / "hf_model"
    model_link.symlink_to(tmp_path, target_is_directory=True)
    loaded = load_runs([root])
    assert [(r.record.designer, r.record.seed) for r in loaded] == [("random", 0)]
    assert [(s.kind, s.path) for s in loaded.skipped] == [("link", root / "quick" / "uniform")]
    assert loaded.skipped[0].line == (
        f"{root}/quick/uniform: a link to {elsewhere / 'uniform'}, not followed (a board reads "
        f"only the runs inside the paths it is given); pass {elsewhere / 'uniform'} itself to "
        "include its runs"
    )
    with pytest.raises(LeaderboardError, match=r"a link to .* not followed"):
        load_runs([root], strict=True)
    assert len(load_runs([elsewhere])) == 2, "its target, passed, is read"
