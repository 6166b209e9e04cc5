"""What a model writes reaches the disk without the run's key and without its megabytes.

`harness compare` runs an LLM designer against the scripted OpenAI-compatible server (a real
HTTP server on 127.0.0.1, reached through LiteLLM) at a tiny budget with two design steps, and
`harness leaderboard publish` builds a site from the runs. The server plays a hostile endpoint:

- design step 1 echoes the request's ``Authorization`` header and a 401-style line quoting the
  key without its ``sk-`` prefix, in the answer (beside a valid change set) and in the
  reasoning, and again in the summary;
- design step 2 answers 10 MB three times (a visible answer, a ``<think>`` block, a separate
  reasoning field), all rejected, and then fails its summary with a real HTTP 401 whose
  message quotes the key without its prefix.

Every file under the runs root and the site is then read as bytes and searched for the key and
for every run of 8 of its characters; the round and result records must stay under a bound far
below the 40 MB the whole answers took, and hold the whole answers' length and sha256.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from designers.llm.client import split_reasoning
from envdesign_common import MAX_STORED_CHARS, MIN_SECRET_CHARS
from harness_cli import app
from run_records import ResultRecord, RoundResult
from tests.designers.openai_server import (
    FAST,
    Received,
    Reply,
    ScriptedServer,
    scripted_good_answer,
)

runner = CliRunner()
KEY_VARIABLE = "ECHO_TEST_API_KEY"
KEY = "sk-test-SECRET123-9f4c2ab7e1d05368"
UNPREFIXED = KEY.removeprefix("sk-")
HUGE = 10_000_000
TINY = ["--designers", "gpt", "--seeds", "1", "--set", "rounds=3",
        "--set", "samples_per_round=40", "--set", "epochs_per_round=1",
        "--set", "benchmarks=[validation]", "--set", "best_of=1"]  # fmt: skip
SUMMARY_ASK = "Write a summary of this round"
RECORD_BOUND = 1_000_000
"""Bytes a round.json or result.json may take here: the records cut to excerpts take about a
third of it, the whole answers took over 40 MB."""


def leak_text(authorization: str) -> str:
    """What the echoing endpoint says back: the header it got and a 401 quoting the key."""
    return (
        f"Your request carried Authorization: {authorization}.\n"
        f"Error 401: Incorrect API key provided: {UNPREFIXED}. Check the key."
    )


def huge_answer(attempt: int) -> Reply:
    """The attempt's 10 MB: in the answer, in a <think> block, in the reasoning field."""
    if attempt == 0:
        return Reply(content="A" * HUGE)
    if attempt == 1:
        return Reply(content="<think>" + "T" * HUGE + "</think>no change set, sorry")
    return Reply(content="no change set again", reasoning="R" * HUGE)


@dataclass
class Endpoint:
    """The hostile endpoint's script, step by step (see the module docstring)."""

    analyses: int = 0

    def __call__(self, request: Received) -> Reply:
        auth = next(v for k, v in request.headers.items() if k.lower() == "authorization")
        messages = request.body["messages"]
        if SUMMARY_ASK in str(messages[-1]["content"]):
            if self.analyses == 1:
                return Reply(content=leak_text(auth), reasoning=leak_text(auth))
            message = f"Incorrect API key provided: {UNPREFIXED}. You can find your key online."
            return Reply(status=401, error_message=message)
        attempt = sum(m["role"] == "assistant" for m in messages)
        self.analyses += attempt == 0
        if self.analyses == 1:
            return Reply(content=leak_text(auth) + "\n\n" + scripted_good_answer(),
                         reasoning=leak_text(auth))  # fmt: skip
        return huge_answer(attempt)


@dataclass(frozen=True)
class Ran:
    runs: Path
    site: Path
    requests: list[Received]
    output: str

    @property
    def run(self) -> Path:
        return self.runs / "quick" / "gpt" / "seed-0"


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory, _server_process: ScriptedServer) -> Iterator[Ran]:
    """The comparison and its site, once: runs root, site, the requests the server saw."""
    server = _server_process
    server.reset()
    server.echo = Endpoint()
    root = tmp_path_factory.mktemp("hostile")
    runs, site = root / "runs", root / "site"
    options = {"gpt": {**FAST, "api_base": server.base_url, "api_key_env": KEY_VARIABLE}}
    commands = [
        ["compare", "--out", str(runs), "--quiet", *TINY,
         "--set", f"designer_options={json.dumps(options)}"],
        ["leaderboard", "publish", str(runs), "--out", str(site)],
    ]  # fmt: skip
    output = ""
    with pytest.MonkeyPatch.context() as env:
        env.setenv(KEY_VARIABLE, KEY)
        for command in commands:
            result = runner.invoke(app, command, env={"COLUMNS": "200"})
            assert result.exit_code == 0, result.output
            output += result.output
    requests = list(server.requests)
    server.reset()
    yield Ran(runs, site, requests, output)


def key_runs() -> set[str]:
    """The key and every run of `MIN_SECRET_CHARS` of its characters (none is in its name)."""
    runs = {KEY[i : i + MIN_SECRET_CHARS] for i in range(len(KEY) - MIN_SECRET_CHARS + 1)}
    assert not any(run in KEY_VARIABLE for run in runs)
    return runs


def test_the_endpoint_got_the_key_and_echoed_it(ran: Ran) -> None:
    """The premise: the key travelled, so the records below had it to leak."""
    first = ran.requests[0]
    assert {v for k, v in first.headers.items() if k.lower() == "authorization"} == {
        f"Bearer {KEY}"
    }
    assert len(ran.requests) == 6  # two analyses + summary, then three analyses + summary


def test_the_key_is_in_no_file_of_the_runs_or_the_site(ran: Ran) -> None:
    files = [p for top in (ran.runs, ran.site) for p in sorted(top.rglob("*")) if p.is_file()]
    assert any(p.name == "round.json" for p in files) and any(p.parent == ran.site for p in files)
    runs = [run.encode() for run in key_runs()]
    leaks = [(p, run) for p in files for run in runs if run in p.read_bytes()]
    assert not leaks, leaks[:5]
    assert KEY not in ran.output


def test_the_key_is_replaced_by_its_variable_name(ran: Ran) -> None:
    marker = f"[redacted:{KEY_VARIABLE}]"
    first = RoundResult.model_validate_json((ran.run / "round-000" / "round.json").read_bytes())
    assert first.proposal is not None and first.proposal.summary is not None
    analysis, summary = first.proposal.transcript
    assert f"Authorization: Bearer {marker}" in analysis.response
    assert f"API key provided: {marker}." in analysis.response
    assert marker in analysis.reasoning and marker in summary.response
    assert marker in first.proposal.rationale and marker in first.proposal.summary
    second = RoundResult.model_validate_json((ran.run / "round-001" / "round.json").read_bytes())
    assert second.proposal is not None and second.proposal.design_failed
    (error,) = [f for f in second.proposal.failures if "summary: model call failed" in f]
    assert f"API key provided: {marker}." in error


def test_huge_answers_are_stored_as_bounded_excerpts(ran: Ran) -> None:
    sizes = {p: p.stat().st_size for p in (*ran.run.glob("round-*/round.json"),
                                           ran.run / "result.json")}  # fmt: skip
    assert all(size < RECORD_BOUND for size in sizes.values()), sizes
    second = RoundResult.model_validate_json((ran.run / "round-001" / "round.json").read_bytes())
    assert second.proposal is not None
    calls = second.proposal.transcript
    assert [c.purpose for c in calls] == [
        "analysis", "analysis retry 1", "analysis retry 2", "summary"]  # fmt: skip
    wholes = [huge_answer(attempt) for attempt in range(3)]
    for call, reply in zip(calls, wholes, strict=False):
        text, reasoning = split_reasoning(reply.content, reply.reasoning)
        pairs = ((call.response, call.response_full, text),
                 (call.reasoning, call.reasoning_full, reasoning))  # fmt: skip
        for stored, digest, whole in pairs:
            if len(whole) <= MAX_STORED_CHARS:
                assert stored == whole and digest is None
                continue
            assert digest is not None and digest.chars == len(whole) == HUGE
            assert digest.sha256 == hashlib.sha256(whole.encode()).hexdigest()
            assert len(stored) < MAX_STORED_CHARS + 200 and digest.sha256 in stored
            assert stored.startswith(whole[:100]) and stored.endswith(whole[-100:])


def test_the_parser_read_the_whole_answers(ran: Ran) -> None:
    """Only storage is bounded: the rejections name the whole answers' lengths."""
    record = ResultRecord.model_validate_json((ran.run / "result.json").read_bytes())
    proposal = record.rounds[1].proposal
    assert proposal is not None
    assert f"analysis: the answer is {HUGE} characters; far too long" in proposal.failures
