"""A zero-shot policy's answers reach its cache, answers and record redacted and bounded.

The scripted server (a real HTTP server on 127.0.0.1, through LiteLLM) answers each prompt with
the suite's optimal plan, after echoing the request's ``Authorization`` header and a 401-style
line quoting the key without its prefix; one instance also thinks for 10 MB. The answers must
score as the plans they hold (the verdicts come from the whole, redacted answer), the key must
be in no file the evaluation wrote, and the 10 MB of reasoning must be cached as an excerpt
with the whole text's length and sha256.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pytest

from envdesign_common import MAX_STORED_CHARS, MIN_SECRET_CHARS
from harness.policy_eval import CACHE_FILE, Requests, evaluate_policy, resolve_policy
from mapf_env import format_plan, load_suite, stratified
from mapf_env.prompt import render_user
from tests.designers.openai_server import Received, Reply, ScriptedServer

KEY_VARIABLE = "ECHO_POLICY_KEY"
KEY = "sk-test-POLICY456-51c0e9d2b7a84f36"
THOUGHT = "T" * 10_000_000
FAST = Requests(concurrency=2, max_retries=1, timeout_s=20.0, deadline_s=60.0,
                backoff_base_s=0.01, backoff_max_s=0.05, max_failures=0)  # fmt: skip


def test_answers_are_scored_whole_and_stored_without_the_key(
    openai_server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = stratified(load_suite("3agents"), 4)
    plans = {render_user(i.instance): i.instance for i in suite.items}
    thinker = suite.items[0].instance.id

    def echo(request: Received) -> Reply:
        auth = next(v for k, v in request.headers.items() if k.lower() == "authorization")
        instance = plans[request.body["messages"][-1]["content"]]
        assert instance.optimum is not None
        leak = f"You sent Authorization: {auth}. 401: key {KEY.removeprefix('sk-')} rejected."
        answer = f"{leak}\n\n{format_plan(instance.optimum.plan)}"
        return Reply(content=answer, reasoning=THOUGHT if instance.id == thinker else leak)

    openai_server.echo = echo
    monkeypatch.setenv(KEY_VARIABLE, KEY)
    spec = resolve_policy("scripted", base_url=openai_server.base_url, api_key_env=KEY_VARIABLE)
    outcome = evaluate_policy(spec, ["3agents"], requests=FAST, out=tmp_path, limit=4)

    assert outcome.record.suites["3agents"].greedy.overall.valid == 4
    folder = outcome.path.parent
    files = [p for p in folder.rglob("*") if p.is_file()]
    assert {p.name for p in files} >= {CACHE_FILE, "result.json", "3agents.jsonl.gz"}
    runs = {KEY[i : i + MIN_SECRET_CHARS] for i in range(len(KEY) - MIN_SECRET_CHARS + 1)}
    for path in files:
        data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        assert not [run for run in runs if run.encode() in data], path
    lines = [json.loads(line) for line in (folder / CACHE_FILE).read_text().splitlines()]
    marker = f"[redacted:{KEY_VARIABLE}]"
    assert all(f"Authorization: Bearer {marker}" in line["text"] for line in lines)
    (thought,) = [line for line in lines if line["id"] == thinker]
    assert len(thought["reasoning"]) < MAX_STORED_CHARS + 200
    assert thought["reasoning_full"] == {
        "chars": len(THOUGHT),
        "sha256": hashlib.sha256(THOUGHT.encode()).hexdigest(),
    }
    assert all(line["text_full"] is None for line in lines)  # answers are kept whole
    assert (folder / CACHE_FILE).stat().st_size < 1_000_000
