"""Stored benchmark answers: every text the policy produced, kept beside the run's result.

A result's verdicts are only as trustworthy as whoever scored them. Keeping the answers
themselves (greedy and every best-of sample, in suite order) lets anyone re-score a run with
their own installed verifier and suites, without re-running the policy or trusting the record.

Layout, beside the run's ``result.json``::

    answers/<suite>.jsonl.gz    one JSON line per instance: {"greedy", "id", "samples"}

The bytes depend only on the answers (sorted keys, compact separators, gzip without a name or
timestamp), so the sha256 the record keeps for each file is the same wherever the answers are
written again. Reading is bounded: a file from someone else's bundle is inflated to at most
`MAX_ANSWERS_BYTES` and each line must be an answer line, or the read fails in one line.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from envdesign_common import atomic_write_bytes
from tasks import Suite

ANSWERS_DIR = "answers"
MAX_ANSWERS_BYTES = 1 << 30
"""Inflated bytes of one answers file read back (a whole quick-preset suite is a few MB)."""


class AnswersError(ValueError):
    """Stored answers that cannot be read or do not fit their suite; the message is one line."""


class InstanceAnswers(BaseModel):
    """One instance's answers: the greedy one and the best-of-n samples, as the policy gave them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    greedy: str
    samples: tuple[str, ...]


class SuiteAnswers(BaseModel):
    """A suite's answers, one entry per instance in the order the suite (or its subset) lists."""

    model_config = ConfigDict(frozen=True)

    suite: str
    items: tuple[InstanceAnswers, ...]

    @classmethod
    def of(
        cls, suite: Suite[Any], greedy: Sequence[str], sampled: Sequence[Sequence[str]]
    ) -> SuiteAnswers:
        """The answers to `suite`'s items, paired with their ids (lengths must agree)."""
        items = tuple(
            InstanceAnswers(id=item.id, greedy=first, samples=tuple(many))
            for item, first, many in zip(suite.items, greedy, sampled, strict=True)
        )
        return cls(suite=suite.name, items=items)

    @property
    def ids(self) -> list[str]:
        return [item.id for item in self.items]

    @property
    def greedy(self) -> list[str]:
        return [item.greedy for item in self.items]

    @property
    def sampled(self) -> list[tuple[str, ...]]:
        return [item.samples for item in self.items]


def answers_file(suite: str) -> str:
    """Where a suite's answers live, relative to the directory of the run's result.json."""
    return f"{ANSWERS_DIR}/{suite}.jsonl.gz"


def encode_answers(answers: SuiteAnswers) -> bytes:
    """Gzipped JSON lines, byte-identical for identical answers (no name or time in the header)."""
    lines = (
        json.dumps(item.model_dump(mode="json"), sort_keys=True, separators=(",", ":")) + "\n"
        for item in answers.items
    )
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, compresslevel=6) as gz:
        gz.write("".join(lines).encode("utf-8"))
    return buffer.getvalue()


def decode_answers(blob: bytes, suite: str, where: str) -> SuiteAnswers:
    """`encode_answers`' bytes back; `where` names the file in the one-line error."""
    try:
        raw = _inflate(blob, where)
        text = raw.decode("utf-8")
    except (OSError, EOFError, zlib.error) as err:
        raise AnswersError(f"{where} is not a gzip file ({err}): the file is damaged") from None
    except UnicodeDecodeError as err:
        raise AnswersError(f"{where} is not UTF-8 text (byte {err.start}): damaged") from None
    items = []
    for n, line in enumerate(text.splitlines(), 1):
        try:
            items.append(InstanceAnswers.model_validate(json.loads(line)))
        except (json.JSONDecodeError, ValidationError, RecursionError):
            raise AnswersError(
                f'{where} line {n} is not an answer line ({{"id", "greedy", "samples"}}): '
                "the file is damaged"
            ) from None
    return SuiteAnswers(suite=suite, items=tuple(items))


def _inflate(blob: bytes, where: str) -> bytes:
    """The gzip member's content, refusing more than `MAX_ANSWERS_BYTES` before inflating it."""
    inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    raw = inflater.decompress(blob, MAX_ANSWERS_BYTES + 1)
    if len(raw) > MAX_ANSWERS_BYTES:
        raise AnswersError(
            f"{where} inflates to more than {MAX_ANSWERS_BYTES >> 20} MiB: refused as hostile"
        )
    if not inflater.eof or inflater.unused_data:
        raise AnswersError(f"{where} is cut short or has trailing bytes: the file is damaged")
    return raw


def write_answers(directory: Path, answers: SuiteAnswers) -> str:
    """Write the suite's answers file under `directory` atomically; its sha256."""
    blob = encode_answers(answers)
    atomic_write_bytes(directory / answers_file(answers.suite), blob)
    return hashlib.sha256(blob).hexdigest()


def answers_blob(directory: Path, suite: str, sha256: str) -> bytes:
    """The bytes of the suite's answers file under `directory`, checked against the checksum
    its record kept (a bundle carries them as they are; `read_answers` decodes them)."""
    path = directory / answers_file(suite)
    try:
        blob = path.read_bytes()
    except OSError as err:
        raise AnswersError(f"{path} cannot be read ({err.strerror or err})") from None
    if hashlib.sha256(blob).hexdigest() != sha256:
        raise AnswersError(f"{path} differs from the checksum its result.json recorded")
    return blob


def read_answers(directory: Path, suite: str, sha256: str) -> SuiteAnswers:
    """The suite's answers under `directory`, which must match the checksum its record kept."""
    blob = answers_blob(directory, suite, sha256)
    return decode_answers(blob, suite, str(directory / answers_file(suite)))
