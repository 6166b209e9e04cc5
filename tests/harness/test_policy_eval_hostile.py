"""`harness eval` against broken servers: bounded in time, stopped by the first SIGTERM, and a
server that never answered is a flagged (or unranked) policy and a failed command, never a
plain 0% row."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from designers.llm.client import CallSettings, Target, complete
from harness.policy_eval import PolicyEvalError, Requests, evaluate_policy, resolve_policy
from harness_cli import app
from leaderboards.design_steps import design_failures, flag_note, unranked_note
from run_records import RequestFailures, ResultRecord
from tests.hostile_http import HostileServer

SUITE = "3agents"
LIMIT = 2
FAST = Requests(concurrency=2, max_retries=1, timeout_s=1.0, deadline_s=2.0,
                backoff_base_s=0.01, backoff_max_s=0.02, max_failures=100)  # fmt: skip
SLACK_S = 20.0
"""Generous: each request's deadline is 2 s, which bounds even a slow-drip server that would
otherwise hold a request forever."""
LABELS = {
    "drip": "no complete answer within",
    "endless": "",  # out of time or too large, whichever comes first
    "stall": "no complete answer within",
    "html": "HTML page instead of JSON in the response",
    "badjson": "invalid JSON in the response",
    "ratelimited": "rate limit (429)",
    "gzipbomb": "response body larger than 16777216 bytes",
    "redirect": "redirect loop",
    "drop": "connection dropped",
}


@pytest.fixture(scope="module")
def hostile() -> Iterator[HostileServer]:
    server = HostileServer().start()
    # Warm LiteLLM up (its first call imports and builds much), in one attempt: the server's
    # HTML page is a failure LiteLLM would retry, backing off for 45 s.
    complete(
        Target(model="openai/m", api_base=server.base_url("html")),
        [{"role": "user", "content": "hi"}],
        CallSettings(timeout_s=60.0, max_retries=0),
    )
    yield server
    server.stop()


def evaluate(server: HostileServer, kind: str, out: Path) -> tuple[ResultRecord, float]:
    spec = resolve_policy("m", base_url=server.base_url(kind))
    box: dict[str, ResultRecord] = {}
    started = time.monotonic()
    thread = threading.Thread(
        target=lambda: box.setdefault("record", evaluate_policy(
            spec, [SUITE], requests=FAST, out=out, limit=LIMIT).record),
        daemon=True,
    )  # fmt: skip
    thread.start()
    thread.join(120.0)
    assert "record" in box, "still running after 120 s"
    return box["record"], time.monotonic() - started


@pytest.mark.parametrize("kind", sorted(LABELS))
def test_every_request_failing_is_recorded_with_its_reason_and_left_unranked(
    hostile: HostileServer, kind: str, tmp_path: Path
) -> None:
    record, seconds = evaluate(hostile, kind, tmp_path)
    assert seconds < LIMIT * FAST.deadline_s + SLACK_S
    failed = record.failed_requests
    assert failed is not None and failed.all_failed and failed.requests == LIMIT
    assert all(LABELS[kind] in reason for reason in failed.reasons), failed.reasons
    flag = design_failures([record])
    assert flag is not None and not flag.ranked
    assert unranked_note("m", flag).startswith(f"m: not ranked: all {LIMIT} requests failed")
    assert any(f"{LIMIT} of {LIMIT} requests failed after retries" in n for n in record.notes)


def test_some_failed_requests_flag_the_row_with_count_and_reason(
    hostile: HostileServer, tmp_path: Path
) -> None:
    """Pooled over two records: one clean, one whose requests all got an HTML page."""
    broken, _ = evaluate(hostile, "html", tmp_path)
    clean = broken.model_copy(update={"failed_requests": RequestFailures.of(LIMIT, [])})
    flag = design_failures([clean, broken])
    assert flag is not None and flag.ranked
    assert flag_note("m", flag) == (
        f"m: {LIMIT}/{2 * LIMIT} requests failed: HTML page instead of JSON in the response "
        "(their instances count as unanswered)"
    )


def test_cli_exits_non_zero_with_one_line_when_every_request_failed(
    hostile: HostileServer, tmp_path: Path
) -> None:
    result = CliRunner().invoke(app, [
        "eval", "--base-url", hostile.base_url("badjson"), "--policy", "m", "--bench", SUITE,
        "--limit", str(LIMIT), "--out", str(tmp_path), "--timeout", "1", "--deadline", "2",
        "--max-retries", "0", "--quiet"])  # fmt: skip
    assert result.exit_code == 1, result.output
    assert (
        f"error: policy 'm' never answered ({LIMIT}/{LIMIT} requests failed: invalid JSON in "
        "the response): its record measures the server, not the model, and boards will not "
        "rank it; fix the endpoint and rerun the same command"
    ) in " ".join(result.output.split())
    record = json.loads(next(tmp_path.rglob("result.json")).read_text())
    assert record["failed_requests"]["failed"] == LIMIT


def harness(*args: str, cwd: Path | None = None) -> subprocess.Popen[str]:
    code = "import sys; from harness_cli.main import main; sys.argv[0] = 'harness'; main()"
    root = str(Path(__file__).resolve().parents[2])  # this checkout, whatever the cwd
    path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "COLUMNS": "200", "PYTHONPATH": path}
    return subprocess.Popen([sys.executable, "-c", code, *args], cwd=cwd, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)  # fmt: skip


def test_the_first_sigterm_ends_eval_while_a_body_drips(
    hostile: HostileServer, tmp_path: Path
) -> None:
    """Requests a minute long, each stuck in a body sent one byte a second: SIGTERM still
    ends the command at once, with its state line and the command to resume."""
    before = hostile.hits["drip"]
    process = harness("eval", "--base-url", hostile.base_url("drip"), "--policy", "m",
                      "--bench", SUITE, "--limit", str(LIMIT), "--out", str(tmp_path),
                      "--timeout", "60", "--deadline", "120")  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while hostile.hits["drip"] < before + LIMIT and time.monotonic() < deadline:
            time.sleep(0.2)
        assert hostile.hits["drip"] >= before + LIMIT, "the requests never reached the server"
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=20)  # long before the requests' 60 s
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 128 + signal.SIGTERM, output
    flat = " ".join(output.split())
    assert "interrupted by SIGTERM: the answers so far are saved under" in flat
    assert "rerun the same command to ask only for the missing ones:" in flat


def test_a_read_only_default_output_is_refused_in_one_line_before_any_work(
    hostile: HostileServer,
) -> None:
    """/proc stands in for a read-only working directory (root may write anywhere else)."""
    asked = hostile.hits["html"]
    process = harness("eval", "--base-url", hostile.base_url("html"), "--policy", "m",
                      "--bench", SUITE, "--limit", str(LIMIT), cwd=Path("/proc"))  # fmt: skip
    output, _ = process.communicate(timeout=120)
    assert hostile.hits["html"] == asked  # nothing was asked
    assert process.returncode == 2, output
    assert output.strip().splitlines() == [
        "error: --out runs: /proc is on a virtual filesystem that stores no files (like /proc "
        "or /sys); choose another --out"
    ]


def test_the_check_is_the_library_s_too(tmp_path: Path) -> None:
    spec = resolve_policy("m", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(PolicyEvalError, match="choose"):
        evaluate_policy(spec, [SUITE], out=Path("/proc/runs"), limit=1)
