"""The answer cache: every answer a policy gives, appended to a JSON-lines file as it arrives.

One line per request, written with a single `write` and `fsync`'d before the next, so a run
killed at any moment loses at most the line being written. Reading it back:

- a line is keyed by (suite, suite checksum, instance id, sample index, model, endpoint,
  sampling settings, prompt version): a rerun with the same settings reuses the answers and asks
  only for the missing ones, and any other setting asks anew;
- lines of failed requests (`error` set) are kept for the record but never reused: a rerun asks
  them again;
- a damaged last line (the run was killed mid-write) is ignored and cut off before the next
  append; a damaged line before it is an error naming the line.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from envdesign_common import TextDigest
from harness.policy_eval.errors import CacheError

CACHE_FILE = "answers.jsonl"
CACHE_VERSION: Literal[1] = 1


class AnswerKey(NamedTuple):
    suite: str
    suite_sha256: str
    id: str
    sample: int
    model: str
    endpoint: str | None
    sampling: str
    prompt_version: str


class CachedAnswer(BaseModel):
    """One line of the cache: the request's key fields, then what came back."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: Literal[1] = CACHE_VERSION
    suite: str
    suite_sha256: str
    id: str
    sample: int = Field(ge=0)
    model: str
    endpoint: str | None = None
    sampling: dict[str, Any]
    prompt_version: str
    text: str = Field(default="", description="The visible answer (reasoning split off).")
    text_full: TextDigest | None = Field(
        default=None, description="None: `text` is the whole answer (answers are kept whole)."
    )
    reasoning: str = ""
    reasoning_full: TextDigest | None = Field(
        default=None, description="Length and sha256 of the whole reasoning when it was cut."
    )
    error: str | None = Field(default=None, description="Set when the request failed (scrubbed).")
    failure: str | None = Field(
        default=None, description="Why it failed, in a few words ('redirect loop'), with `error`."
    )
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    seconds: float = 0.0
    attempts: int = 0
    retries: tuple[str, ...] = Field(default=(), description="Transient failures retried.")

    def key(self) -> AnswerKey:
        return AnswerKey(
            self.suite,
            self.suite_sha256,
            self.id,
            self.sample,
            self.model,
            self.endpoint,
            sampling_key(self.sampling),
            self.prompt_version,
        )


def sampling_key(sampling: dict[str, Any]) -> str:
    return json.dumps(sampling, sort_keys=True, separators=(",", ":"))


class AnswerCache:
    """The cache file of one policy's directory; `append` may be called from many threads."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.answers: dict[AnswerKey, CachedAnswer] = {}
        self.dropped_tail = False
        self._lock = threading.Lock()
        self._load()

    def get(self, key: AnswerKey) -> CachedAnswer | None:
        return self.answers.get(key)

    def append(self, answer: CachedAnswer) -> None:
        """Write one line and fsync it; successful answers become reusable at once."""
        data = (answer.model_dump_json() + "\n").encode("utf-8")
        with self._lock:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            finally:
                os.close(fd)
            if answer.error is None:
                self.answers[answer.key()] = answer

    def _load(self) -> None:
        if not self.path.is_file():
            self.path.parent.mkdir(parents=True, exist_ok=True)
            return
        raw = self.path.read_bytes()
        lines = raw.split(b"\n")
        complete, tail = lines[:-1], lines[-1]  # tail: bytes after the last newline
        parsed: list[CachedAnswer] = []
        for number, line in enumerate(complete, 1):
            answer = _parse(line)
            if answer is not None:
                parsed.append(answer)
            elif number == len(complete) and not tail:
                self._cut(len(raw) - len(line) - 1)  # the last line, written partly
            else:
                raise CacheError(
                    f"{self.path} line {number} is damaged (not an answer of cache version "
                    f"{CACHE_VERSION}); delete that line, or the file to ask everything again"
                )
        if tail:
            self._cut(len(raw) - len(tail))
        for answer in parsed:
            if answer.error is None:
                self.answers[answer.key()] = answer

    def _cut(self, size: int) -> None:
        """Drop a damaged last line so the next append starts on a line of its own."""
        self.dropped_tail = True
        with self.path.open("r+b") as f:
            f.truncate(size)
            f.flush()
            os.fsync(f.fileno())


def _parse(line: bytes) -> CachedAnswer | None:
    try:
        return CachedAnswer.model_validate_json(line)
    except (ValidationError, ValueError):
        return None
