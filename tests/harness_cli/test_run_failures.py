"""A run that fails stays inside its run: the `harness` command in subprocesses, with a plug-in
designer that takes its worker process down (``os._exit``, SIGKILL) or raises.

The other runs finish, the failed one gets `failure.json` and one terminal line naming it, how
it ended and the log with the rest; `--resume` then completes it exactly as an undisturbed run.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from run_records import read_failure, read_result

pytestmark = pytest.mark.e2e

REPO = Path(__file__).parents[2]
PLUGIN = Path(__file__).resolve().parent / "crash_plugin"
TINY = ["--set", "samples_per_round=40", "--set", "epochs_per_round=1",
        "--set", "benchmarks=[validation]", "--set", "best_of=1", "--quiet"]  # fmt: skip


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The crashing designer as an installed plug-in: its module beside a distribution's
    metadata naming it in the ``harness.designers`` group, as ``pip install`` leaves it."""
    site = tmp_path_factory.mktemp("site")
    dist = site / "crashing_designer-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: crashing-designer\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(
        "[harness.designers]\ncrashing = crashing_designer:CrashingDesigner\n"
    )
    (site / "crashing_designer.py").write_text((PLUGIN / "crashing_designer.py").read_text())
    return site


def harness(site: Path, *args: str, crash: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "ENVDESIGN_TEST_CRASH"}
    env["PYTHONPATH"] = str(site)
    if crash is not None:
        env["ENVDESIGN_TEST_CRASH"] = crash
    return subprocess.run([sys.executable, "-m", "harness_cli", *args], capture_output=True,
                          text=True, env=env, cwd=REPO, timeout=900)  # fmt: skip


def said(result: subprocess.CompletedProcess[str]) -> str:
    return result.stdout + result.stderr


def test_a_worker_that_exits_fails_its_run_alone_and_resume_completes_it(
    site: Path, tmp_path: Path
) -> None:
    out = tmp_path / "runs"
    command = ["compare", "--designers", "crashing,uniform", "--workers", "1", "--out", str(out),
               "--set", "rounds=3", *TINY]  # fmt: skip
    failed = harness(site, *command, crash="exit:3")
    text = said(failed)
    assert failed.returncode == 1, text
    assert "Traceback" not in text and "BrokenProcessPool" not in text, text
    crashed = out / "quick" / "crashing" / "seed-0"
    line = (f"crashing seed 0 failed: its worker process exited with code 3 without a result; "
            f"finished rounds are kept (details in {crashed / 'failure.log'})")  # fmt: skip
    assert [x for x in text.splitlines() if "failed:" in x] == [f"error: {line}"], text
    failure = read_failure(crashed)
    assert failure is not None and failure.error == "WorkerDied" and failure.round == 1
    assert "exited with code 3" in (crashed / "failure.log").read_text()
    assert not (crashed / "result.json").exists()
    assert len(read_result(out / "quick" / "uniform" / "seed-0").rounds) == 3  # the other one
    resume = next(x for x in text.splitlines() if x.startswith("continue with: "))
    again = shlex.split(resume.removeprefix("continue with: "))
    assert again[:2] == ["harness", "compare"] and again[-1] == "--resume"

    resumed = harness(site, *again[1:])
    assert resumed.returncode == 0, said(resumed)
    assert read_failure(crashed) is None and not (crashed / "failure.log").exists()
    undisturbed = tmp_path / "undisturbed"
    plain = harness(site, "compare", "--designers", "crashing", "--workers", "1",
                    "--out", str(undisturbed), "--set", "rounds=3", *TINY)  # fmt: skip
    assert plain.returncode == 0, said(plain)
    got, want = read_result(crashed), read_result(undisturbed / "quick" / "crashing" / "seed-0")
    assert [(r.config, r.validation) for r in got.rounds] == [
        (r.config, r.validation) for r in want.rounds
    ]
    assert got.suites == want.suites


def test_a_worker_killed_by_a_signal_is_named_and_the_run_beside_it_finishes(
    site: Path, tmp_path: Path
) -> None:
    out = tmp_path / "runs"
    failed = harness(site, "compare", "--designers", "crashing,uniform", "--workers", "2",
                     "--out", str(out), "--set", "rounds=2", *TINY, crash="signal:9")  # fmt: skip
    text = said(failed)
    assert failed.returncode == 1 and "Traceback" not in text, text
    assert "crashing seed 0 failed: its worker process was killed by SIGKILL" in text, text
    assert "uniform seed 0 failed" not in text
    failure = read_failure(out / "quick" / "crashing" / "seed-0")
    assert failure is not None and "killed by SIGKILL" in failure.message
    assert len(read_result(out / "quick" / "uniform" / "seed-0").rounds) == 2


def test_a_run_that_raises_is_one_line_and_its_traceback_is_in_the_log(
    site: Path, tmp_path: Path
) -> None:
    out = tmp_path / "runs"
    command = ["compare", "--designers", "crashing", "--out", str(out), "--set", "rounds=2", *TINY]
    failed = harness(site, *command, crash="raise")
    text = said(failed)
    run = out / "quick" / "crashing" / "seed-0"
    assert failed.returncode == 1, text
    assert "Traceback" not in text, text
    (line,) = [x for x in text.splitlines() if x.startswith("error: crashing seed 0 failed: ")]
    assert "planted failure in initial_config" in line, line
    assert line.endswith(f" (traceback in {run / 'failure.log'})"), line
    log = (run / "failure.log").read_text()
    assert log.startswith("Traceback (most recent call last)") and "planted failure" in log, log
    for debug in (["--debug", *command, "--resume"], [*command, "--resume", "--debug"]):
        shown = said(harness(site, *debug, crash="raise"))
        assert "Traceback (most recent call last)" in shown and "initial_config" in shown, shown
        assert line in shown.splitlines(), shown


def test_json_lines_give_every_run_its_outcome_finished_or_failed(
    site: Path, tmp_path: Path
) -> None:
    """A script reading `--json` learns of a failed run as of a finished one: one JSON line
    each, the failed one with the line the terminal prints."""
    out = tmp_path / "runs"
    loud = [x for x in TINY if x != "--quiet"]
    failed = harness(site, "compare", "--designers", "crashing,uniform", "--out", str(out),
                     "--set", "rounds=1", *loud, "--json", crash="raise")  # fmt: skip
    assert failed.returncode == 1, said(failed)
    outcomes = [json.loads(x) for x in failed.stdout.splitlines() if '"seed"' in x
                and '"event"' not in x]  # fmt: skip
    assert {o["designer"]: sorted(o) for o in outcomes} == {
        "crashing": ["designer", "failed", "seed"],
        "uniform": ["designer", "result", "seed"],
    }
    (line,) = [o["failed"] for o in outcomes if o["designer"] == "crashing"]
    assert line.startswith("crashing seed 0 failed: ") and "planted failure" in line, line


def test_a_dead_ray_worker_fails_its_run_alone(site: Path, tmp_path: Path) -> None:
    pytest.importorskip("ray")
    out = tmp_path / "runs"
    failed = harness(site, "compare", "--executor", "ray", "--designers", "crashing,uniform",
                     "--out", str(out), "--set", "rounds=2", *TINY, crash="exit:3")  # fmt: skip
    text = said(failed)
    assert failed.returncode == 1 and "Traceback" not in text, text
    crashed = out / "quick" / "crashing" / "seed-0"
    assert "crashing seed 0 failed: its worker process was lost (" in text, text
    assert f"(details in {crashed / 'failure.log'})" in text, text
    failure = read_failure(crashed)
    assert failure is not None and failure.error == "WorkerDied"
    assert len(read_result(out / "quick" / "uniform" / "seed-0").rounds) == 2
