"""`harness eval`: zero-shot policies against the scripted OpenAI-compatible server, via LiteLLM.

The server answers from the prompt it receives (`responder`), so each instance gets the answer
a test scripted for it -- the suite's optimal plan, garbage, a 429 with Retry-After, a 500, a
reply slower than the timeout -- whatever order concurrent requests arrive in.
"""

from __future__ import annotations

import gzip
import io
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from harness.backends.cpu import CpuBackend, CpuLearnerSettings
from harness.evaluate import benchmark_suite
from harness.policy_eval import (
    CACHE_FILE,
    CacheError,
    EvalEvent,
    PolicyEvalError,
    Requests,
    Sampling,
    TooManyFailures,
    evaluate_policy,
    resolve_policy,
)
from harness_cli import app
from harness_cli.progress import EvalView
from mapf_env import BenchmarkSuite, Instance, format_plan, load_suite, stratified
from mapf_env.prompt import render_user
from tasks.mapf_frozenlake import MapfFrozenLake, as_task_suite
from tests.designers.openai_server import Reply, ScriptedServer

MAPF = MapfFrozenLake()
FAST = Requests(concurrency=4, max_retries=2, timeout_s=5.0, deadline_s=20.0,
                backoff_base_s=0.01, backoff_max_s=0.05, max_failures=20)  # fmt: skip
SUITE = "3agents"
LIMIT = 8


def subset(limit: int = LIMIT) -> BenchmarkSuite:
    return stratified(load_suite(SUITE), limit)


def correct(instance: Instance) -> str:
    """The suite's own optimal plan, in the answer format."""
    assert instance.optimum is not None
    return format_plan(instance.optimum.plan)


class Script:
    """Per instance id, the replies to give in turn (the last repeats); others answer right."""

    def __init__(self, suite: BenchmarkSuite, plan: dict[str, Sequence[Reply | str]]) -> None:
        self.by_prompt = {render_user(item.instance): item.instance for item in suite.items}
        self.plan = {k: list(v) for k, v in plan.items()}
        self.asked: Counter[str] = Counter()

    def __call__(self, body: dict[str, Any]) -> Reply | str:
        instance = self.by_prompt[body["messages"][-1]["content"]]
        name = instance.id or ""
        self.asked[name] += 1
        replies = self.plan.get(name)
        if not replies:
            return correct(instance)
        reply = replies[min(self.asked[name], len(replies)) - 1]
        return correct(instance) if reply == "correct" else reply


def ids(suite: BenchmarkSuite) -> list[str]:
    return [item.instance.id or "" for item in suite.items]


def cache_lines(out: Path) -> list[dict[str, Any]]:
    path = out / "policies" / "openai_scripted" / CACHE_FILE
    return [json.loads(line) for line in path.read_text().splitlines()]


def scripted(server: ScriptedServer, plan: dict[str, Sequence[Reply | str]] | None = None,
             limit: int = LIMIT) -> Script:  # fmt: skip
    script = Script(subset(limit), plan or {})
    server.responder = script
    return script


def test_scripted_answers_are_scored_and_recorded(openai_server: ScriptedServer,
                                                  tmp_path: Path) -> None:  # fmt: skip
    names = ids(subset())
    first = correct(subset().items[0].instance)
    plan: dict[str, Sequence[Reply | str]] = {
        names[0]: [f"<think>Agent 1 could wait.</think>\n{first}"],  # reasoning is stripped
        names[1]: ["I cannot solve this."],
        names[2]: ["Agent 1: (0,0)"],
    }
    scripted(openai_server, plan)
    spec = resolve_policy("scripted", base_url=openai_server.base_url)
    outcome = evaluate_policy(spec, [SUITE], requests=FAST, out=tmp_path, limit=LIMIT)
    record = outcome.record
    result = record.suites[SUITE]
    assert (result.greedy.overall.n, result.greedy.overall.valid) == (LIMIT, LIMIT - 2)
    assert result.greedy.overall.optimal == LIMIT - 2
    assert result.best_of == result.greedy and result.best_of_n == 1
    failures = {v.id: v.failure for v in result.verdicts if v.failure}
    assert failures == {names[1]: "parse", names[2]: "agent_count"}
    assert record.kind == "policy" and record.backend == "openai" and record.designer == "scripted"
    assert record.experiment["policy"] == "openai/scripted"
    assert record.experiment["sampling"] == {"temperature": None, "max_tokens": None, "samples": 1}
    assert record.experiment["designer_options"]["scripted"]["base_url"] == openai_server.base_url
    assert record.schema_version and record.package_version and record.git_commit
    assert any("best-of-n equals greedy" in n for n in record.notes)
    assert any("no request failed" in n for n in record.notes)
    assert outcome.path == tmp_path / "policies" / "openai_scripted" / "result.json"
    assert json.loads(outcome.path.read_text())["kind"] == "policy"
    lines = cache_lines(tmp_path)
    assert len(lines) == LIMIT and {line["id"] for line in lines} == set(names)
    assert all(b.body["model"] == "scripted" for b in openai_server.requests)


def test_rate_limits_server_errors_and_timeouts_are_retried_or_counted(
    openai_server: ScriptedServer, tmp_path: Path
) -> None:
    names = ids(subset())
    plan: dict[str, Sequence[Reply | str]] = {
        names[0]: [Reply(status=429, headers={"Retry-After": "0.3"}), "correct"],
        names[1]: [Reply(status=500), "correct"],
        names[2]: [Reply(content="too late", delay_s=4.0), "correct"],
        names[3]: [Reply(status=500)],  # fails on every attempt
    }
    script = scripted(openai_server, plan)
    requests = FAST.model_copy(update={"timeout_s": 1.5})
    spec = resolve_policy("scripted", base_url=openai_server.base_url)
    record = evaluate_policy(spec, [SUITE], requests=requests, out=tmp_path, limit=LIMIT).record
    result = record.suites[SUITE]
    assert result.greedy.overall.valid == result.greedy.overall.optimal == LIMIT - 1
    assert [v.failure for v in result.verdicts if not v.valid] == ["parse"]
    assert [script.asked[n] for n in names[:4]] == [2, 2, 2, 3]
    assert any(n.startswith("1 of 8 requests failed after retries") for n in record.notes)
    lines = {line["id"]: line for line in cache_lines(tmp_path)}
    assert "RateLimitError" in lines[names[0]]["retries"][0] and lines[names[0]]["seconds"] >= 0.3
    assert "InternalServerError" in lines[names[1]]["retries"][0]
    assert lines[names[2]]["retries"][0] == "no complete answer within 1.5 s"
    assert lines[names[3]]["error"] and lines[names[3]]["text"] == ""
    # a rerun asks again only for the failed request, now answered
    script.plan.clear()
    record = evaluate_policy(spec, [SUITE], requests=requests, out=tmp_path, limit=LIMIT).record
    assert record.suites[SUITE].greedy.overall.valid == LIMIT
    assert script.asked[names[3]] == 4 and sum(script.asked.values()) == 14


def test_max_failures_stops_early_with_a_clear_message(openai_server: ScriptedServer,
                                                       tmp_path: Path) -> None:  # fmt: skip
    scripted(openai_server, {n: [Reply(status=500)] for n in ids(subset())})
    requests = FAST.model_copy(update={"concurrency": 1, "max_retries": 0, "max_failures": 1})
    spec = resolve_policy("scripted", base_url=openai_server.base_url)
    with pytest.raises(TooManyFailures, match=r"2 requests failed .* --max-failures 1") as err:
        evaluate_policy(spec, [SUITE], requests=requests, out=tmp_path, limit=LIMIT)
    assert "rerun the same command" in str(err.value)
    assert len(openai_server.requests) <= 3  # the rest were cancelled
    assert not (tmp_path / "policies" / "openai_scripted" / "result.json").exists()


def test_an_interrupted_evaluation_continues_from_the_cache(openai_server: ScriptedServer,
                                                            tmp_path: Path) -> None:  # fmt: skip
    script = scripted(openai_server)
    spec = resolve_policy("scripted", base_url=openai_server.base_url)
    seen: list[EvalEvent] = []

    def stop_after_three(event: EvalEvent) -> None:
        seen.append(event)
        if sum(e.kind == "instance" for e in seen) == 3:
            raise RuntimeError("killed")

    requests = FAST.model_copy(update={"concurrency": 2})
    with pytest.raises(RuntimeError, match="killed"):
        evaluate_policy(spec, [SUITE], requests=requests, out=tmp_path, limit=LIMIT,
                        on_event=stop_after_three)  # fmt: skip
    first = sum(script.asked.values())
    assert 3 <= first < LIMIT and len(cache_lines(tmp_path)) == first  # in-flight ones kept
    events: list[EvalEvent] = []
    record = evaluate_policy(spec, [SUITE], requests=requests, out=tmp_path, limit=LIMIT,
                             on_event=events.append).record  # fmt: skip
    assert set(script.asked.values()) == {1}  # nothing was asked twice
    assert len(script.asked) == LIMIT
    assert events[0].kind == "start" and events[0].cached == first == events[0].done
    assert record.suites[SUITE].greedy.overall.valid == LIMIT
    assert any(f"{LIMIT - first} asked in this run, {first} from the answer cache" in n
               for n in record.notes)  # fmt: skip


def test_a_damaged_cache_line(openai_server: ScriptedServer, tmp_path: Path) -> None:
    script = scripted(openai_server)
    spec = resolve_policy("scripted", base_url=openai_server.base_url)
    evaluate_policy(spec, [SUITE], requests=FAST, out=tmp_path, limit=LIMIT)
    cache = tmp_path / "policies" / "openai_scripted" / CACHE_FILE
    with cache.open("a") as f:
        f.write('{"v": 1, "suite": "3agents", "id": "3agen')  # killed mid-write
    record = evaluate_policy(spec, [SUITE], requests=FAST, out=tmp_path, limit=LIMIT).record
    assert sum(script.asked.values()) == LIMIT  # nothing asked again
    assert any("last line was damaged" in n for n in record.notes)
    assert cache.read_text().endswith("}\n")  # the broken tail was cut off
    lines = cache.read_text().splitlines(keepends=True)
    cache.write_text("".join([lines[0], "garbage\n", *lines[1:]]))
    with pytest.raises(CacheError, match="line 2 is damaged"):
        evaluate_policy(spec, [SUITE], requests=FAST, out=tmp_path, limit=LIMIT)


def test_best_of_n_and_cache_keys(openai_server: ScriptedServer, tmp_path: Path) -> None:
    script = scripted(openai_server, {n: ["wrong", "correct"] for n in ids(subset(4))}, limit=4)
    spec = resolve_policy("scripted", base_url=openai_server.base_url)
    requests = FAST.model_copy(update={"concurrency": 1})
    record = evaluate_policy(spec, [SUITE], sampling=Sampling(samples=2), requests=requests,
                             out=tmp_path, limit=4).record  # fmt: skip
    result = record.suites[SUITE]
    assert result.greedy.overall.valid == 0 and result.best_of.overall.valid == 4
    assert result.best_of_n == 2 and record.experiment["best_of"] == 2
    assert all(v.best_of_optimal and not v.valid for v in result.verdicts)
    # one more sample reuses the first two; other sampling settings ask anew
    evaluate_policy(spec, [SUITE], sampling=Sampling(samples=3), requests=requests,
                    out=tmp_path, limit=4)  # fmt: skip
    assert sum(script.asked.values()) == 12
    evaluate_policy(spec, [SUITE], sampling=Sampling(temperature=0.5), requests=requests,
                    out=tmp_path, limit=4)  # fmt: skip
    assert sum(script.asked.values()) == 16
    assert openai_server.requests[-1].body["temperature"] == 0.5
    assert "temperature" not in openai_server.requests[0].body


def test_stratified_subsets_cover_the_suite_and_grow_by_prefix() -> None:
    suite = load_suite(SUITE)
    small, large = stratified(suite, 4), stratified(suite, 24)
    assert set(ids(small)) <= set(ids(large))
    assert {(i.size, i.subset) for i in large.items} == {(i.size, i.subset) for i in suite.items}
    assert {i.hole_ratio for i in large.items} == {0.1}
    assert len({i.hole_ratio for i in stratified(suite, 120).items}) == 5
    assert stratified(suite, None) is suite and stratified(suite, 10_000) is suite
    assert ids(large) == [i for i in ids(suite) if i in set(ids(large))]  # suite order


def test_cpu_checkpoint_answers_like_the_round_loop(tmp_path: Path) -> None:
    settings = CpuLearnerSettings(threads=1, hidden=(16,), seed=3)
    backend = CpuBackend(settings)
    backend.save(tmp_path / "round-000" / "checkpoint")
    spec = resolve_policy(None, checkpoint=tmp_path / "round-000" / "checkpoint")
    assert spec.route == "cpu" and spec.name.startswith("cpu:") and "round-000" in spec.name
    outcome = evaluate_policy(spec, [SUITE], sampling=Sampling(samples=2), out=tmp_path / "runs",
                              limit=12, seed=5)  # fmt: skip
    expected = benchmark_suite(MAPF, backend, as_task_suite(subset(12)), 2, 5).result
    assert outcome.record.suites[SUITE] == expected
    assert outcome.record.backend == "cpu" and outcome.cache is None
    assert outcome.path.parent.parent == tmp_path / "runs" / "policies"
    with pytest.raises(PolicyEvalError, match="not a CPU learner checkpoint"):
        evaluate_policy(resolve_policy(None, checkpoint=tmp_path), [SUITE])


@pytest.mark.parametrize("mode", ["bars", "plain", "json", "quiet"])
def test_progress_modes(mode: str, capsys: pytest.CaptureFixture[str]) -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=mode == "bars", width=120)
    events = [EvalEvent("start", SUITE, total=4, cached=1, done=1, valid=1),
              EvalEvent("instance", SUITE, done=2, total=4, valid=1, failed=1, cached=1),
              EvalEvent("suite", SUITE, done=4, total=4, valid=3, failed=1, cached=1),
              EvalEvent("done", "", path="runs/policies/x/result.json")]  # fmt: skip
    with EvalView(console, quiet=mode == "quiet", as_json=mode == "json") as view:
        for event in events:
            view(event)
    shown, printed = buffer.getvalue(), capsys.readouterr().out
    if mode == "json":
        assert [json.loads(line)["event"] for line in printed.splitlines()] == [
            "start", "suite", "done"]  # fmt: skip
    elif mode == "quiet":
        assert shown == printed == ""
    elif mode == "plain":
        assert shown == "3agents: 4 instances, valid 75.0% · 1 failed · 1 cached\n"
    else:
        assert "valid 75.0% · 1 failed · 1 cached" in shown and "4/4" in shown


def invoke(args: list[str]) -> Any:
    return CliRunner().invoke(app, args)


def test_cli_evaluates_resumes_and_the_board_shows_policies(openai_server: ScriptedServer,
                                                            tmp_path: Path) -> None:  # fmt: skip
    script = scripted(openai_server)
    base = ["eval", "--base-url", openai_server.base_url, "--bench", SUITE, "--out",
            str(tmp_path), "--max-retries", "1", "--timeout", "5"]  # fmt: skip
    result = invoke([*base, "--policy", "scripted", "--limit", "4", "--quiet"])
    assert result.exit_code == 0, result.output
    assert "record written to" in result.output and sum(script.asked.values()) == 4
    result = invoke([*base, "--policy", "scripted", "--limit", str(LIMIT), "--json"])
    assert result.exit_code == 0, result.output
    assert sum(script.asked.values()) == LIMIT  # the first four came from the cache
    events = [json.loads(line) for line in result.output.splitlines()]
    assert events[0]["event"] == "start" and events[0]["cached"] == 4
    assert events[-1]["suites"][SUITE]["valid"] == 1.0
    # a second policy: both in the board's policy table
    scripted(openai_server, {n: ["nope"] for n in ids(subset())[:4]})
    result = invoke([*base, "--policy", "other", "--limit", str(LIMIT), "--quiet"])
    assert result.exit_code == 0, result.output
    board = invoke(["leaderboard", "show", str(tmp_path / "policies"), "--format", "json",
                    "--resamples", "100"])  # fmt: skip
    assert board.exit_code == 0, board.output
    rows = {r["designer"]: r for r in json.loads(board.output)["rows"]}
    assert {r["kind"] for r in rows.values()} == {"policy"}
    assert rows["scripted"]["policy"] == "openai/scripted"
    assert rows["other"]["suites"][SUITE]["valid"]["mean"] < rows["scripted"]["suites"][SUITE][
        "valid"]["mean"]  # fmt: skip
    shown = invoke(["leaderboard", "show", str(tmp_path / "policies"), "--resamples", "100"])
    assert shown.exit_code == 0 and "scripted" in shown.output


def test_keys_come_from_the_environment_only(openai_server: ScriptedServer, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    secret = "sk-test-0123456789abcdef"
    monkeypatch.setenv("SCRIPTED_KEY", secret)
    scripted(openai_server, {n: [Reply(status=500)] for n in ids(subset(2))}, limit=2)
    result = invoke(["eval", "--base-url", openai_server.base_url, "--policy", "scripted",
                     "--api-key-env", "SCRIPTED_KEY", "--bench", SUITE, "--limit", "2",
                     "--max-retries", "0", "--out", str(tmp_path), "--quiet"])  # fmt: skip
    assert result.exit_code == 1, result.output  # every request failed: the record is kept
    assert openai_server.requests[0].headers["Authorization"] == f"Bearer {secret}"
    folder = tmp_path / "policies" / "openai_scripted"
    for path in (p for p in folder.rglob("*") if p.is_file()):  # stored answers are gzipped
        text = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        assert secret.encode() not in text, path
    assert "SCRIPTED_KEY" in (folder / "result.json").read_text()  # the variable's name only
    assert "2 of 2 requests failed" in (folder / "result.json").read_text()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--policy", "gtp"], "unknown policy 'gtp': did you mean 'gpt'?"),
        (["--policy", "gpt", "--bench", "9agents"], "unknown benchmark suite '9agents'"),
        (["--policy", "gpt"], "gpt (openai/gpt-5.4) needs OPENAI_API_KEY in the environment"),
        (["--policy", "x", "--base-url", "http://127.0.0.1:9/v1", "--api-key-env", "NO_SUCH_KEY"],
         "--api-key-env NO_SUCH_KEY: that environment variable is not set"),
        (["--policy", "llm:nowhere-model"], "LiteLLM does not know the provider"),
        ([], "--policy is required"),
        (["--checkpoint", "no/such/dir"], "not a CPU learner checkpoint"),
        (["--policy", "gpt", "--limit", "0"], "Invalid value for '--limit'"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line(args: list[str], message: str, tmp_path: Path,
                               monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = invoke(["eval", *args, "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert message in result.output, result.output
    if "Invalid value" not in message:
        assert result.output.startswith("error:") and len(result.output.strip().splitlines()) == 1
