"""The `policy` record of a zero-shot evaluation: what was asked, how, and what it cost.

Boards compare a record's `experiment` with the other policies' (see
`leaderboards.compat`), so it holds only what must match for a fair comparison -- suites, the
subset limit, sampling, prompt version -- while how this policy was reached (model, endpoint,
request limits) goes under `designer_options[<policy>]`, and what happened (cached answers,
failed requests, tokens) goes in `notes`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from envdesign_common import atomic_write_bytes, key_env_names, key_redactor
from harness.policy_eval.cache import CACHE_FILE, CachedAnswer
from harness.policy_eval.policy import PolicySpec
from harness.policy_eval.settings import Requests, Sampling
from mapf_env import PROMPT_VERSION
from run_records import RESULT_FILE, RequestFailures, ResultRecord, SuiteResult, stamp

EXPERIMENT_NAME = "zero-shot"


@dataclass
class Usage:
    """Where a model's answers came from and what they cost."""

    dropped_tail: bool = False
    new: int = 0
    cached: int = 0
    retried: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    priced: int = 0
    failed: dict[str, int] = field(default_factory=dict)
    asked: dict[str, int] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)
    """Why each request of this run failed after its retries."""

    def add(self, answer: CachedAnswer, *, cached: bool) -> None:
        if cached:
            self.cached += 1
        else:
            self.new += 1
        self.retried += bool(answer.retries)
        if answer.error is not None:
            self.reasons.append(answer.failure or "request failed")
        self.prompt_tokens += answer.prompt_tokens
        self.completion_tokens += answer.completion_tokens
        if answer.cost_usd is not None:
            self.cost_usd += answer.cost_usd
            self.priced += 1

    def failed_requests(self) -> RequestFailures:
        """The requests of this run and those that failed, for the record."""
        return RequestFailures.of(sum(self.asked.values()), self.reasons)

    def notes(self) -> list[str]:
        total, answers = sum(self.failed.values()), self.new + self.cached
        lines = [f"answers: {self.new} asked in this run, {self.cached} from the answer cache "
                 f"({CACHE_FILE})"]  # fmt: skip
        if total:
            where = ", ".join(f"{suite} {n}" for suite, n in self.failed.items() if n)
            why = self.failed_requests().summary.partition(": ")[2]
            lines.append(
                f"{total} of {sum(self.asked.values())} requests failed after retries ({where}): "
                f"{why}; they are recorded as failed requests (boards flag this policy, and "
                "leave it unranked when every request failed) and their instances as "
                "unanswered; rerun the same command to ask them again"
            )
        else:
            lines.append("no request failed after retries")
        if self.retried:
            lines.append(f"{self.retried} answers needed retries (rate limits, 5xx, timeouts)")
        if self.dropped_tail:
            lines.append("the cache's last line was damaged (an interrupted write) and ignored")
        cost = (
            f"${self.cost_usd:.4f}"
            if answers and self.priced == answers
            else f"not recorded ({self.priced} of {answers} answers priced)"
        )
        lines.append(
            f"tokens: {self.prompt_tokens} prompt, {self.completion_tokens} completion; cost {cost}"
        )
        return lines


def make_record(
    spec: PolicySpec,
    results: dict[str, SuiteResult],
    *,
    sampling: Sampling,
    requests: Requests,
    limit: int | None,
    seed: int,
    usage: Usage | None,
    seconds: float,
    answers_sha256: dict[str, str],
) -> ResultRecord:
    """The record; `usage` is None for a CPU checkpoint (no model calls); `answers_sha256`:
    the stored answers' checksums by suite (`run_records.store_scored`)."""
    options: dict[str, Any] = spec.options()
    if spec.route != "cpu":
        options["requests"] = requests.model_dump()
    experiment: dict[str, Any] = {
        "name": EXPERIMENT_NAME,
        "policy": spec.model,
        "designers": [spec.name],
        "seeds": [seed],
        "designer_options": {spec.name: options},
        "benchmarks": list(results),
        "limit": limit,
        "best_of": sampling.samples,
        "sampling": sampling.model_dump(),
        "prompt_version": PROMPT_VERSION,
    }
    return ResultRecord(
        **stamp(),
        kind="policy",
        experiment=experiment,
        designer=spec.name,
        seed=seed,
        backend=spec.route,
        initial_source="shared",
        rounds=(),
        suites=results,
        answers_sha256=answers_sha256,
        seconds=round(seconds, 3),
        notes=tuple(_notes(spec, sampling, limit, seed, usage)),
        failed_requests=usage.failed_requests() if usage is not None else None,
    )


def _notes(
    spec: PolicySpec, sampling: Sampling, limit: int | None, seed: int, usage: Usage | None
) -> list[str]:
    n = sampling.samples
    if spec.route == "cpu":
        lines = [
            f"zero-shot: CPU learner checkpoint {spec.model}; greedy is its greedy rollout and "
            f"best of {n} is over {n} sampled rollouts (seed {seed + 1}), as the round loop "
            "scores checkpoints"
        ]
    else:
        same = "; with one sample, best-of-n equals greedy" if n == 1 else ""
        lines = [
            f"zero-shot: {spec.model} via {spec.route} answered each prompt {n} time(s); "
            f"greedy is scored on the first answer and best of {n} over all{same}"
        ]
    if limit is not None:
        lines.append(
            f"a stratified subset of at most {limit} instances per suite (--limit): not "
            "comparable with full-suite records"
        )
    if usage is not None:
        lines += usage.notes()
    return lines


def write_record(directory: Path, record: ResultRecord) -> Path:
    """Write ``result.json`` atomically, with the values of the key variables the policy names
    (and any that looks like a key) redacted, as a run directory's files are; its path."""
    path = directory / RESULT_FILE
    redactor = key_redactor(key_env_names(record.experiment.as_dict()))
    atomic_write_bytes(path, redactor.redact(record.model_dump_json(indent=2)).encode("utf-8"))
    return path
