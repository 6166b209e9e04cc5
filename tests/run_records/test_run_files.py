"""Damaged run files: every reader answers with one line, and resume recovers the undamaged result.

Each file kind of a finished and of a half-finished tiny run is truncated, emptied, garbled or
deleted; `harness runs show` and `runs list` must name the file, say what is wrong and what to
do, and `--resume` must train the damaged round again (or re-run the benchmarks) and arrive at
the result of the run nobody damaged.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
import signal
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.executors import Job, RunOptions, run_job
from harness.experiment import ExperimentConfig
from harness.run_dir import RunDir
from harness_cli import app
from run_records import FAILURE_FILE, ResultRecord, RunDirError, RunFileError, count_rounds
from tests.harness.test_loop import outcome, run, tiny

runner = CliRunner()
WIDE = {"COLUMNS": "400"}
HOW = ("truncate", "empty", "garble", "delete")


def experiment() -> ExperimentConfig:
    return tiny(rounds=2, samples_per_round=50)


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ResultRecord]:
    """An undamaged two-round run of `random`: its directory and its record."""
    root = tmp_path_factory.mktemp("undamaged")
    record = run(experiment(), "random", root)
    return RunDir(root, experiment(), "random", 0).path, record


def copy_run(finished: tuple[Path, ResultRecord], tmp_path: Path, state: str) -> RunDir:
    """A copy of the finished run; `half`: as if killed after training round 2, before its end."""
    target = RunDir(tmp_path, experiment(), "random", 0)
    shutil.copytree(finished[0], target.path)
    if state == "half":
        (target.round_path(1) / "round.json").unlink()
        (target.path / "result.json").unlink()
    return target


def damage(path: Path, how: str) -> None:
    if how == "delete":
        shutil.rmtree(path) if path.is_dir() else path.unlink()
        return
    data = path.read_bytes()
    if how == "empty":
        data = b""
    elif how == "truncate":
        data = data[: len(data) // 2]
    else:  # garble: bytes that are neither the old ones nor UTF-8
        middle = len(data) // 2
        data = data[:middle] + b"\xff\xfe\xfd\xfc" + data[middle + 4 :]
    path.write_bytes(data)


def test_round_records_vouch_for_their_config_and_checkpoint(
    finished: tuple[Path, ResultRecord],
) -> None:
    for n in range(2):
        round_dir = finished[0] / f"round-{n:03d}"
        files = json.loads((round_dir / "round.json").read_text())["files"]
        expected = ["checkpoint/cpu_policy.pt", "checkpoint/cpu_settings.json", "config.yaml"]
        assert sorted(files) == expected
        for relative, digest in files.items():
            assert hashlib.sha256((round_dir / relative).read_bytes()).hexdigest() == digest


def test_runs_show_counts_rounds_and_rates_as_the_progress_lines_do(
    finished: tuple[Path, ResultRecord],
) -> None:
    path, record = finished
    shown = runner.invoke(app, ["runs", "show", str(path)], env=WIDE)
    assert shown.exit_code == 0, shown.output
    rows = [line for line in shown.stdout.splitlines() if line.startswith("│")]
    first = record.rounds[0]
    valid = f"{100 * first.validation.overall.valid_rate:.1f}%"
    assert any(r.split("│")[1].strip() == "1/2" and valid in r for r in rows), shown.stdout
    assert any(r.split("│")[1].strip() == "2/2" for r in rows), shown.stdout
    header = next(line for line in shown.stdout.splitlines() if "3x3" in line)
    assert all(f"{n}x{n}" in header for n in range(3, 11))
    three = first.config.sizes[3]
    # after the rounds' own row: round 1's row of the samples, holes and waits tables, in order
    samples, holes, waits = [r for r in rows if r.split("│")[1].strip() == "1/2"][1:4]
    assert all(f"{what} per size (%)" in shown.stdout
               for what in ("share of samples", "hole ratio", "wait ratio"))  # fmt: skip
    assert samples.split("│")[2].strip() == f"{100 * three.ratio:.1f}", shown.stdout
    assert holes.split("│")[2].strip() == f"{100 * three.hole_ratio:.1f}", shown.stdout
    assert waits.split("│")[2].strip() == f"{100 * three.wait_ratio:.1f}", shown.stdout


SHOW_CASES = [
    *[(s, "run.json", h, 2, ["run.json", "restore the file"]) for s in ("finished", "half")
      for h in HOW[:3]],
    *[("finished", "result.json", h, 2, ["result.json", "`--resume` runs the final"])
      for h in HOW[:3]],
    *[("finished", "round-000/round.json", h, 0, ["round-000/round.json", "results are intact"])
      for h in HOW],
    *[("half", "round-000/round.json", h, 0, ["round-000/round.json", "trains this round again"])
      for h in HOW[:3]],
    *[(s, f"round-000/{f}", h, 0, [f"round-000/{f}", "vouches" if h == "delete" else "differs"])
      for s in ("finished", "half") for f in ("config.yaml", "checkpoint/cpu_policy.pt")
      for h in HOW],
    *[(s, "round-000/checkpoint", "delete", 0, ["round-000/checkpoint/cpu_policy.pt", "missing"])
      for s in ("finished", "half")],
]  # fmt: skip


@pytest.mark.parametrize(("state", "file", "how", "code", "expected"), SHOW_CASES)
def test_runs_show_names_the_damaged_file_in_one_line(
    finished: tuple[Path, ResultRecord], tmp_path: Path, state: str, file: str, how: str,
    code: int, expected: list[str],
) -> None:  # fmt: skip
    target = copy_run(finished, tmp_path, state)
    damage(target.path / file, how)
    shown = runner.invoke(app, ["runs", "show", str(target.path)], env=WIDE)
    assert shown.exit_code == code, shown.output
    assert "Traceback" not in shown.output
    lines = shown.stderr.strip().splitlines() if code else [
        line for line in shown.stdout.splitlines() if line.startswith("note:")]  # fmt: skip
    assert len(lines) == 1, shown.output
    for part in expected:
        assert part in lines[0], lines[0]


@pytest.mark.parametrize(("state", "file", "how", "status"), [
    ("finished", "run.json", "garble", "unreadable: "),
    ("half", "run.json", "truncate", "unreadable: "),
    ("finished", "result.json", "empty", "unreadable: "),
    ("finished", "round-000/round.json", "truncate", "finished"),
    ("half", "round-000/round.json", "garble", "unfinished 0 of 2"),
    ("half", "round-000/checkpoint", "delete", "unfinished 1 of 2"),
])  # fmt: skip
def test_runs_list_shows_each_run_status(
    finished: tuple[Path, ResultRecord], tmp_path: Path, state: str, file: str, how: str,
    status: str,
) -> None:  # fmt: skip
    target = copy_run(finished, tmp_path, state)
    damage(target.path / file, how)
    listed = runner.invoke(app, ["runs", "list", str(tmp_path)], env=WIDE)
    assert listed.exit_code == 0 and "Traceback" not in listed.output, listed.output
    row = next(line for line in listed.stdout.splitlines() if "tiny/random/seed-0" in line)
    assert status in row, listed.stdout
    if status.startswith("unreadable"):
        assert file in row and "; " in row, row  # the file, what is wrong; what to do


RESUME_CASES = [
    ("half", "round-000/round.json", "truncate"),
    ("half", "round-000/config.yaml", "garble"),
    ("half", "round-000/checkpoint/cpu_policy.pt", "truncate"),
    ("half", "round-000/checkpoint", "delete"),
    ("finished", "result.json", "empty"),
    ("finished", "round-001/checkpoint/cpu_settings.json", "garble"),
]


@pytest.mark.parametrize(("state", "file", "how"), RESUME_CASES)
def test_resume_trains_damaged_rounds_again_to_the_undamaged_result(
    finished: tuple[Path, ResultRecord], tmp_path: Path, state: str, file: str, how: str
) -> None:
    target = copy_run(finished, tmp_path, state)
    damage(target.path / file, how)
    if state == "finished" and file != "result.json":
        (target.path / "result.json").unlink()  # killed before the benchmarks were written
    resumed = run(experiment(), "random", tmp_path, resume=True)
    assert outcome(resumed) == outcome(finished[1])
    assert {n: s.greedy for n, s in resumed.suites.items()} == {
        n: s.greedy for n, s in finished[1].suites.items()}  # fmt: skip
    assert count_rounds(target.path, verify=True) == 2
    assert ResultRecord.model_validate_json((target.path / "result.json").read_text()) == resumed


@pytest.mark.parametrize("how", HOW[:3])
def test_resume_refuses_a_damaged_run_json_in_one_line(
    finished: tuple[Path, ResultRecord], tmp_path: Path, how: str
) -> None:
    target = copy_run(finished, tmp_path, "half")
    damage(target.path / "run.json", how)
    with pytest.raises(RunDirError) as caught:
        run_job(experiment(), Job("random", 0), tmp_path, RunOptions(resume=True), threads=1)
    message = str(caught.value)
    assert "\n" not in message and str(target.path / "run.json") in message
    assert "remove the run directory" in message
    assert not (target.path / FAILURE_FILE).exists()  # not this run's failure: nothing written


def test_harness_run_resume_refuses_a_damaged_run_json_naming_it(
    finished: tuple[Path, ResultRecord], tmp_path: Path
) -> None:
    """Refused before any run starts; the same error also crosses from a worker (it pickles)."""
    target = copy_run(finished, tmp_path / "out", "half")
    damage(target.path / "run.json", "truncate")
    config = tmp_path / "tiny.yaml"
    config.write_text(experiment().to_yaml())
    resumed = runner.invoke(app, ["run", str(config), "--out", str(tmp_path / "out"),
                                  "--workers", "1", "--quiet", "--set", "designers=[random]",
                                  "--resume"], env=WIDE)  # fmt: skip
    assert resumed.exit_code == 2 and "Traceback" not in resumed.output, resumed.output
    [line] = [x for x in resumed.stderr.splitlines() if x.startswith("error:")]
    assert f"{target.path / 'run.json'} is not valid JSON" in line and "restore the file" in line
    err = RunFileError(target.path / "run.json", "is empty (damaged)", "restore it", "missing")
    copy = pickle.loads(pickle.dumps(err))
    assert (str(copy), copy.path, copy.problem) == (str(err), err.path, "missing")


@pytest.mark.parametrize("broken", ["truncate", "delete"])
def test_a_checkpoint_that_does_not_load_is_one_line(
    finished: tuple[Path, ResultRecord], tmp_path: Path, broken: str
) -> None:
    target = copy_run(finished, tmp_path, "half")
    record_file = target.round_path(0) / "round.json"
    unvouched = json.loads(record_file.read_text())
    del unvouched["files"]  # a record that vouches for no file: its checkpoint goes unchecked
    record_file.write_text(json.dumps(unvouched))
    damage(target.checkpoint(0) / "cpu_policy.pt" if broken == "truncate" else
           target.checkpoint(0), broken)  # fmt: skip
    with pytest.raises(RunFileError) as caught:
        run(experiment(), "random", tmp_path, resume=True)
    message = str(caught.value)
    assert "\n" not in message and "cannot be loaded" in message
    assert "round-000/round.json so `--resume` trains that round again" in message


def test_a_failed_run_is_recorded_and_a_finished_resume_clears_it(
    finished: tuple[Path, ResultRecord], tmp_path: Path
) -> None:
    needs_a_server = RunDir(tmp_path, experiment(), "self", 0)
    with pytest.raises(Exception, match="serves none"):
        run_job(experiment(), Job("self", 0), tmp_path, RunOptions(), threads=1)
    failure = needs_a_server.failure()
    assert failure is not None and failure.error == "DesignerNotReady"
    assert failure.round is None and failure.time.utcoffset() is not None
    listed = runner.invoke(app, ["runs", "list", str(tmp_path)], env=WIDE)
    assert "failed: DesignerNotReady: designer 'self'" in listed.stdout, listed.output
    shown = runner.invoke(app, ["runs", "show", str(needs_a_server.path)], env=WIDE)
    assert "failed: DesignerNotReady" in shown.stdout, shown.output
    target = copy_run(finished, tmp_path, "finished")
    target.write_failure(RuntimeError("an earlier attempt ran out of memory"))
    run_job(experiment(), Job("random", 0), tmp_path, RunOptions(resume=True), threads=1)
    assert not (target.path / FAILURE_FILE).exists()


def test_an_interrupted_run_is_not_recorded_as_failed(tmp_path: Path) -> None:
    """Ctrl-C in the middle of training round 1: the run stops, but it did not fail."""
    target = RunDir(tmp_path, experiment(), "random", 0)

    def interrupt_once_training_started() -> None:
        deadline = time.monotonic() + 120
        while not target.curves(0).exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        os.kill(os.getpid(), signal.SIGINT)

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    watcher = threading.Thread(target=interrupt_once_training_started, daemon=True)
    try:
        watcher.start()
        with pytest.raises(KeyboardInterrupt):
            run_job(experiment(), Job("random", 0), tmp_path, RunOptions(), threads=1)
    finally:
        watcher.join()
        signal.signal(signal.SIGINT, previous)
    assert target.curves(0).exists() and not (target.path / "result.json").exists()
    assert not (target.path / FAILURE_FILE).exists()
