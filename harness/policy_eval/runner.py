"""`evaluate_policy`: a policy answers the benchmark suites zero-shot; a `policy` record results.

For a model (LiteLLM or an OpenAI-compatible server) every instance's prompt
(`mapf_env.render_prompt`) is sent `samples` times; answers come from the cache when it has
them, otherwise from the model, `concurrency` requests at a time. A CPU learner checkpoint
answers through `respond()` exactly as the round loop scores it. Either way the answers are
scored by the testbed's verifier (`run_records.score_answers`), stored beside the record
as the round loop stores its benchmarks' (`run_records.store_scored`: answers first), and
the record is written to ``<out>/policies/<model>/result.json``.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from designers.llm.client import CallResult, complete
from harness.evaluate import benchmark_suite
from harness.policy_eval.asking import Asker, Request, ask_all
from harness.policy_eval.cache import (
    CACHE_FILE,
    AnswerCache,
    AnswerKey,
    CachedAnswer,
    sampling_key,
)
from harness.policy_eval.errors import PolicyEvalError, TooManyFailures
from harness.policy_eval.events import EvalEvent, OnEvent, SuiteTally
from harness.policy_eval.policy import PolicySpec, check_ready
from harness.policy_eval.record import Usage, make_record, write_record
from harness.policy_eval.selection import load_suites
from harness.policy_eval.settings import Requests, Sampling
from harness.preflight import output_problem
from mapf_env import PROMPT_VERSION
from run_records import (
    POLICIES_DIR,
    ResultRecord,
    ScoredSuite,
    SuiteAnswers,
    score_answers,
    store_scored,
)
from tasks import DEFAULT_TASK, Suite, Task, cached_task


@dataclass(frozen=True)
class EvalOutcome:
    record: ResultRecord
    path: Path
    cache: Path | None


def policy_dir(out: Path, spec: PolicySpec) -> Path:
    """Where a policy's record and answer cache live: ``<out>/policies/<model>/``."""
    return out / POLICIES_DIR / spec.dir_name


def evaluate_policy(
    spec: PolicySpec,
    suites: Sequence[str],
    *,
    sampling: Sampling | None = None,
    requests: Requests | None = None,
    out: Path = Path("runs"),
    limit: int | None = None,
    seed: int = 0,
    on_event: OnEvent | None = None,
    ask: Asker | None = None,
) -> EvalOutcome:
    """Evaluate `spec` on `suites` and write its record; see the module docstring.

    `ask` replaces the LLM client (tests); `on_event` sees progress (and may raise to stop).
    """
    sampling = sampling or Sampling()
    requests = requests or Requests()
    emit = on_event or (lambda event: None)
    task = cached_task(DEFAULT_TASK)
    loaded = load_suites(task, suites, limit)
    check_ready(spec)
    problem = output_problem(out)
    if problem is not None:
        raise PolicyEvalError(problem)
    directory = policy_dir(out, spec)
    started = time.monotonic()
    if spec.route == "cpu":
        scored, usage = _cpu(task, spec, loaded, sampling, seed, emit), None
    else:
        scored, usage = _llm(task, spec, loaded, sampling, requests, directory, ask, emit)
    results, answers_sha256 = store_scored(directory, scored)
    record = make_record(
        spec, results, sampling=sampling, requests=requests, limit=limit, seed=seed,
        usage=usage, seconds=time.monotonic() - started, answers_sha256=answers_sha256,
    )  # fmt: skip
    path = write_record(directory, record)
    emit(EvalEvent("done", "", path=str(path)))
    return EvalOutcome(record, path, directory / CACHE_FILE if usage is not None else None)


def _cpu(
    task: Task[Any, Any],
    spec: PolicySpec,
    suites: list[Suite[Any]],
    sampling: Sampling,
    seed: int,
    emit: OnEvent,
) -> dict[str, ScoredSuite]:
    from harness.backends.cpu import CpuBackend

    backend = CpuBackend()
    backend.load(Path(spec.model))
    results = {}
    for suite in suites:
        emit(EvalEvent("start", suite.name, total=len(suite.items)))
        scored = benchmark_suite(task, backend, suite, sampling.samples, seed)
        n = len(suite.items)
        judged = zip(suite.items, scored.answers.greedy, strict=True)
        valid = sum(task.judge(item.item, answer).valid for item, answer in judged)
        emit(EvalEvent("suite", suite.name, done=n, total=n, valid=valid))
        results[suite.name] = scored
    return results


def _llm(
    task: Task[Any, Any],
    spec: PolicySpec,
    suites: list[Suite[Any]],
    sampling: Sampling,
    requests: Requests,
    directory: Path,
    ask: Asker | None,
    emit: OnEvent,
) -> tuple[dict[str, ScoredSuite], Usage]:
    cache = AnswerCache(directory / CACHE_FILE)
    tallies = [SuiteTally(task, suite, sampling.samples) for suite in suites]
    usage = Usage(dropped_tail=cache.dropped_tail)
    missing: list[Request] = []
    for s, (suite, tally) in enumerate(zip(suites, tallies, strict=True)):
        for i, item in enumerate(suite.items):
            for k in range(sampling.samples):
                key = _key(spec, suite, item.id, k, sampling)
                hit = cache.get(key)
                if hit is None:
                    missing.append(Request(s, i, k, key, task.prompt(item.item)))
                else:
                    usage.add(hit, cached=True)
                    tally.add(i, k, hit.text, failed=False, cached=True)
        emit(tally.event("start"))
        if tally.done == tally.total:
            emit(tally.event("suite"))

    def on_answer(request: Request, answer: CachedAnswer) -> None:
        tally = tallies[request.suite]
        usage.add(answer, cached=False)
        failed = answer.error is not None
        if tally.add(request.item, request.sample, answer.text, failed=failed, cached=False):
            emit(tally.event("instance"))
            if tally.done == tally.total:
                emit(tally.event("suite"))

    settings = requests.call_settings(sampling)
    target = spec.target()

    def ask_model(request: Request) -> CallResult:
        seed = zlib.crc32(f"{request.key.id}/{request.sample}".encode())
        return complete(target, request.messages, settings, seed=seed)

    try:
        ask_all(missing, ask or ask_model, cache, concurrency=requests.concurrency,
                max_failures=requests.max_failures, on_answer=on_answer)  # fmt: skip
    except TooManyFailures as err:
        raise TooManyFailures(
            f"{err}; the {len(cache.answers)} answers so far are saved in {cache.path}: fix the "
            "cause and rerun the same command, which asks only for the missing ones"
        ) from None
    results = {}
    for suite, tally in zip(suites, tallies, strict=True):
        greedy, sampled = tally.answers()
        answers = SuiteAnswers.of(suite, greedy, sampled)
        results[suite.name] = score_answers(task, suite, answers, sampling.samples)
        usage.failed[suite.name] = tally.failed
        usage.asked[suite.name] = tally.total * sampling.samples
    return results, usage


def _key(
    spec: PolicySpec, suite: Suite[Any], instance_id: str, sample: int, sampling: Sampling
) -> AnswerKey:
    return AnswerKey(
        suite=suite.name,
        suite_sha256=suite.checksum,
        id=instance_id,
        sample=sample,
        model=spec.model,
        endpoint=spec.base_url,
        sampling=sampling_key(sampling.cache_part()),
        prompt_version=PROMPT_VERSION,
    )
