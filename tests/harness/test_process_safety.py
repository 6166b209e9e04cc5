"""Real comparisons, run as the `harness` command in subprocesses at a tiny budget: workers end
with the command on SIGTERM and SIGKILL, a second command on a root another one writes is
refused in one line, and a comparison extended by a seed runs only the new seed."""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.run_lock import COMMAND_LOCK, WRITER_LOCK, refusal
from run_records import check_round, read_result

pytestmark = pytest.mark.e2e

REPO = Path(__file__).parents[2]
ROUNDS = 8
TINY = ["--designers", "random,uniform", "--workers", "2", "--set", "samples_per_round=40",
        "--set", "epochs_per_round=1", "--set", "benchmarks=[validation]", "--set", "best_of=1",
        "--quiet"]  # fmt: skip
RUNS = ("random", "uniform")


def launch(out: Path, *extra: str, rounds: int = ROUNDS) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "harness_cli", "compare", "--out", str(out), *TINY,
               "--set", f"rounds={rounds}", *extra]  # fmt: skip
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True, cwd=REPO)  # fmt: skip


@pytest.fixture
def started() -> Iterator[list[subprocess.Popen[str]]]:
    """Commands a test starts; whatever is left of their process groups is killed after it."""
    processes: list[subprocess.Popen[str]] = []
    yield processes
    for process in processes:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate(timeout=60)


def wait_for_a_round(out: Path, process: subprocess.Popen[str], timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while len(list(out.glob("quick/*/seed-0/round-000/round.json"))) < len(RUNS):
        assert process.poll() is None, process.communicate()[0]
        assert time.monotonic() < deadline, "no round finished in time"
        time.sleep(0.2)


def processes() -> dict[int, tuple[int, str, bytes]]:
    """Every process: pid -> (parent pid, state, command line), read from /proc."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            command = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        state, parent = stat[stat.rindex(")") + 2 :].split()[:2]
        found[int(entry)] = (int(parent), state, command)
    return found


def descendants(pid: int) -> dict[int, bytes]:
    """The processes `pid` started, and theirs: pid -> command line."""
    table, found, frontier = processes(), {}, [pid]
    while frontier:
        parent = frontier.pop()
        for child, (ppid, _, command) in table.items():
            if ppid == parent and child not in found:
                found[child] = command
                frontier.append(child)
    return found


def alive(pids: set[int]) -> set[int]:
    """Those of `pids` still running (a zombie nobody reaped has ended)."""
    table = processes()
    return {p for p in pids if p in table and table[p][1] != "Z"}


def gone(pids: set[int], timeout: float = 60) -> set[int]:
    """Wait up to `timeout` seconds for `pids` to end; those still running."""
    deadline = time.monotonic() + timeout
    while (left := alive(pids)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


def run_paths(out: Path, seeds: tuple[int, ...] = (0,)) -> list[Path]:
    return [out / "quick" / d / f"seed-{s}" for d in RUNS for s in seeds]


def assert_finished(out: Path, rounds: int = ROUNDS) -> None:
    """Every run has its result, with every round's record and files intact."""
    for run in run_paths(out):
        record = read_result(run)
        assert len(record.rounds) == rounds
        for n in range(rounds):
            check_round(run / f"round-{n:03d}", n)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL])
def test_workers_end_with_the_command(
    tmp_path: Path, started: list[subprocess.Popen[str]], signum: int
) -> None:
    """A signal to the command alone (`kill PID`, `timeout`, the OOM killer): no worker lives
    on, none holds the output pipe, and no run stays locked."""
    out = tmp_path / "runs"
    started.append(process := launch(out, rounds=40))
    wait_for_a_round(out, process)
    workers = descendants(process.pid)
    pool = {p for p, command in workers.items() if b"spawn_main" in command}
    assert len(pool) >= 2, workers  # the two workers, one per run
    process.send_signal(signum)
    try:
        process.communicate(timeout=120)  # end of file: nobody holds the output pipe any more
    except subprocess.TimeoutExpired:
        pytest.fail(f"the output pipe is still held 120 s after {signal.Signals(signum).name}: "
                    f"processes left: {sorted(alive(set(workers)))}")  # fmt: skip
    assert process.returncode == (143 if signum == signal.SIGTERM else -signal.SIGKILL)
    assert not gone(set(workers)), "processes outlived the command"
    for run in run_paths(out):
        assert refusal(run, COMMAND_LOCK) is None and refusal(run, WRITER_LOCK) is None


def test_two_resumes_at_once_one_is_refused_the_other_finishes(
    tmp_path: Path, started: list[subprocess.Popen[str]]
) -> None:
    """Two `--resume` of one killed comparison started together: exactly one is refused, in
    one line naming the other, and the other finishes every run intact."""
    out = tmp_path / "runs"
    started.append(first := launch(out))
    wait_for_a_round(out, first)
    first.send_signal(signal.SIGKILL)
    first.communicate(timeout=120)
    pair = [launch(out, "--resume"), launch(out, "--resume")]
    started.extend(pair)
    outputs = [p.communicate(timeout=1200)[0] for p in pair]
    codes = [p.returncode for p in pair]
    assert sorted(codes) == [0, 2], outputs
    winner, loser = (0, 1) if codes[0] == 0 else (1, 0)
    lines = outputs[loser].strip().splitlines()
    assert len(lines) == 1, outputs[loser]
    assert lines[0].startswith(f"error: {out / 'quick'}/")
    assert f"is being written by another process (pid {pair[winner].pid} on " in lines[0]
    assert lines[0].endswith("; wait for it to end or stop it, then continue with --resume")
    assert_finished(out)


def test_a_second_command_is_refused_while_the_first_writes(
    tmp_path: Path, started: list[subprocess.Popen[str]]
) -> None:
    """A second command on a root that another one is writing, with or without `--resume`,
    is refused before it changes anything, and the first goes on."""
    out = tmp_path / "runs"
    started.append(first := launch(out, rounds=40))
    wait_for_a_round(out, first)
    for extra in (["--resume"], []):
        second = subprocess.run([sys.executable, "-m", "harness_cli", "compare", "--out",
                                 str(out), *TINY, "--set", "rounds=40", *extra],
                                capture_output=True, text=True, timeout=600,
                                cwd=REPO)  # fmt: skip
        assert second.returncode == 2, second.stdout + second.stderr
        assert second.stderr.splitlines() == [
            f"error: {out / 'quick' / 'random' / 'seed-0'} (and 1 more of this comparison's "
            f"runs) is being written by another process (pid {first.pid} on "
            + second.stderr.split(f"(pid {first.pid} on ", 1)[-1].rstrip("\n")
        ], second.stderr
        assert "since " in second.stderr and second.stdout == ""
    assert first.poll() is None, "the first command stopped"
    first.send_signal(signal.SIGTERM)
    first.communicate(timeout=120)
    for run in run_paths(out):  # everything the first finished is there and intact
        rounds = sorted(run.glob("round-*/round.json"))
        assert rounds, run
        for n in range(len(rounds)):
            check_round(run / f"round-{n:03d}", n)


def fingerprint(run: Path) -> dict[str, tuple[int, str]]:
    """Every file of a run: its modification time and checksum."""
    return {str(p.relative_to(run)): (p.stat().st_mtime_ns, hashlib.sha256(p.read_bytes())
                                      .hexdigest())
            for p in sorted(run.rglob("*")) if p.is_file()}  # fmt: skip


def test_adding_a_seed_to_a_finished_comparison_runs_only_the_new_seed(
    tmp_path: Path,
) -> None:
    out = tmp_path / "runs"

    def compare(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "harness_cli", "compare", "--out", str(out),
                               *TINY, "--set", "rounds=2", *extra], capture_output=True,
                              text=True, timeout=900, cwd=REPO)  # fmt: skip

    done = compare("--seeds", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    before = {run: fingerprint(run) for run in run_paths(out)}
    refused = compare("--seeds", "2")  # without --resume the finished runs are still taken
    assert refused.returncode == 2 and "already holds a run; pass --resume" in refused.stderr
    extended = compare("--seeds", "2", "--resume")
    assert extended.returncode == 0, extended.stdout + extended.stderr
    assert {run: fingerprint(run) for run in before} == before  # seed 0 untouched
    for run in run_paths(out, seeds=(1,)):
        assert len(read_result(run).rounds) == 2
    changed = compare("--seeds", "2", "--resume", "--set", "epochs_per_round=2")
    assert changed.returncode == 2
    assert "was started with another experiment config (epochs_per_round: 1 then, 2 now)" in (
        changed.stderr
    )
