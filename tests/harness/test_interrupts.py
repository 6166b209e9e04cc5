"""Ctrl-C or SIGTERM during a real comparison: every worker stops, the command says what finished
and what is partial and prints the exact command that continues it, and that command does."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.designers.openai_server import Reply, ScriptedServer

TINY = ["--set", "rounds=6", "--set", "samples_per_round=40", "--set", "epochs_per_round=1",
        "--set", "benchmarks=[validation]", "--set", "best_of=1"]  # fmt: skip


def start(out: Path) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "harness_cli", "compare", "--designers", "random,uniform",
               "--out", str(out), *TINY]  # fmt: skip
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True, cwd=Path(__file__).parents[2])  # fmt: skip


def wait_for_a_round(out: Path, process: subprocess.Popen[str], timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while not list(out.glob("quick/*/seed-0/round-000/round.json")):
        assert process.poll() is None, process.communicate()[0]
        assert time.monotonic() < deadline, "no round finished in time"
        time.sleep(0.2)


def group_gone(pgid: int, timeout: float = 15) -> bool:
    """Whether every process of the group (the command and its workers) has ended."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.2)
    return False


@pytest.mark.e2e
@pytest.mark.parametrize(("signum", "code", "to_group"),
                         [(signal.SIGINT, 130, True), (signal.SIGTERM, 143, False)])  # fmt: skip
def test_an_interrupted_compare_reports_and_resumes(
    tmp_path: Path, signum: int, code: int, to_group: bool
) -> None:
    """SIGINT goes to the whole group, as Ctrl-C does; SIGTERM to the main process alone, as
    `kill PID` does, so the command itself must stop its workers."""
    out = tmp_path / "runs"
    process = start(out)
    wait_for_a_round(out, process)
    if to_group:
        os.killpg(process.pid, signum)
    else:
        process.send_signal(signum)
    output, _ = process.communicate(timeout=60)
    assert process.returncode == code, output
    assert group_gone(process.pid), "workers outlived the command"
    name = signal.Signals(signum).name
    assert f"interrupted by {name}" in output, output
    # Every run is listed with its state; which one the worker took first is the pool's choice,
    # so the one that had finished a round is unfinished and the other unfinished or not started.
    states = {d: next(x for x in output.splitlines() if x.strip().startswith(f"{d} seed 0: "))
              for d in ("random", "uniform")}  # fmt: skip
    assert any(": unfinished " in line for line in states.values()), output
    assert all(": unfinished " in line or ": not started " in line
               for line in states.values()), output  # fmt: skip
    assert not list(out.glob("quick/*/seed-0/result.json"))
    line = next(x for x in output.splitlines() if x.startswith("continue with: "))
    command = shlex.split(line.removeprefix("continue with: "))
    assert command[:2] == ["harness", "compare"] and command[-1] == "--resume"
    resumed = subprocess.run([sys.executable, "-m", "harness_cli", *command[1:], "--quiet"],
                             capture_output=True, text=True, timeout=600,
                             cwd=Path(__file__).parents[2])  # fmt: skip
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert len(list(out.glob("quick/*/seed-0/result.json"))) == 2


@pytest.mark.e2e
def test_an_interrupted_eval_says_how_to_continue(
    tmp_path: Path, openai_server: ScriptedServer
) -> None:
    openai_server.default = Reply(content="Agent 1: (0,0)", delay_s=0.2)
    command = ["eval", "--policy", "scripted", "--base-url", openai_server.base_url,
               "--bench", "3agents", "--limit", "40", "--concurrency", "1",
               "--out", str(tmp_path)]  # fmt: skip
    process = subprocess.Popen([sys.executable, "-m", "harness_cli", *command],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               cwd=Path(__file__).parents[2])  # fmt: skip
    deadline = time.monotonic() + 120
    while len(openai_server.requests) < 3:
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()[0]
        time.sleep(0.1)
    process.send_signal(signal.SIGTERM)
    output, _ = process.communicate(timeout=60)
    assert process.returncode == 143, output
    flat = " ".join(output.split())
    assert "interrupted by SIGTERM" in flat and "rerun the same command" in flat, output
    assert "harness eval --policy scripted" in flat


def test_an_error_raised_while_ctrl_c_was_handled_is_the_interrupt() -> None:
    """Ctrl-C in the middle of `torch.save` surfaces as its zip writer's RuntimeError; the run
    was interrupted, so `run_job` raises the interrupt and writes no failure.json."""
    from harness.executors.base import interrupt_behind

    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise RuntimeError("[enforce fail at inline_container.cc:672] unexpected pos") from None
    except RuntimeError as err:
        assert isinstance(interrupt_behind(err), KeyboardInterrupt)
    assert interrupt_behind(RuntimeError("a plain failure")) is None
