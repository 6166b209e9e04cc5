"""verl's rollout dumps: whether one is whole, and the share of its responses that are valid.

verl writes ``trainer.rollout_data_dir/<step>.jsonl`` (`layout.dump_file`), one JSON line per
response. How and when, read in its sources:

* verl 0.6.1 (``RayPPOTrainer._dump_generations``, ``verl/trainer/ppo/ray_trainer.py``): in
  the trainer's own thread, the whole file in one ``write`` of a text file opened with ``"w"``,
  before the step's metrics reach the file logger. Each line carries the reward's extra keys,
  ``valid`` among them.
* verl 0.9.1 (``_dump_generations`` of ``verl/trainer/ppo/v1/trainer_base.py`` and of the
  legacy ``ray_trainer.py``): handed to a ``ThreadPoolExecutor(max_workers=1)`` and written
  there -- ``open(<step>.jsonl, "w")`` under its final name (no temporary name, no rename), one
  ``write`` per line through Python's buffered text file -- while the trainer goes on to log
  the step. So the metrics line usually comes first and a dump can be seen empty, cut inside
  a line, or short of lines. The one writer thread takes dumps in submission order, and the
  executor is drained before the trainer returns. The default (v1) trainer dumps only
  ``uid`` besides verl's own keys (``input``, ``output``, ``gts``, ``score``, ``step``), so
  there the verdict is recomputed from ``output`` and ``gts`` (the item's text in the row)
  with the task's own judge, as the reward function computed it (`task_feed`). Where a batch
  does not divide into the actor's mini-batches it is padded with synthetic responses whose
  ``uid`` starts with ``pad`` (``trainer/ppo/padding_utils.py``); they are not counted.

A dump is *complete* when it ends at a line's end and holds at least the step's number of
responses (prompts per step x n); it is *final* (its writer is done with it) when it is
complete without padding rows -- the last line is the last write -- or when the process that
wrote it has exited. `DumpFiles` tells a file left by an earlier trainer process from one being
(re)written now by comparing ``os.stat`` snapshots: verl rewrites a step's dump after a resume,
so an old file of the same name says nothing about the new attempt.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.backends.verl.layout import OUTPUT_KEY, TRUTH_KEY, dump_file
from harness.backends.verl.task_feed import TaskFeed

__all__ = ["Dump", "DumpFiles", "read_dump"]

VALID_KEY, UID_KEY = "valid", "uid"
PADDING_UID = "pad"
"""verl 0.9's synthetic padding responses have uids ``pad<hex>``; real ones are uuid4 strings."""

StatKey = tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class Dump:
    """What one read of a dump found (whole lines only)."""

    rows: int
    """Real responses (padding excluded)."""
    valid: float
    """The sum of their verdicts (1 valid, 0 not); 0 until `complete` (verdicts are computed
    only for a complete dump)."""
    padding: int
    ends_whole: bool
    """The file ends at a line's end (an empty file does not)."""
    problem: str | None = None
    """A whole line that does not read, or a row with no verdict: the dump cannot be used."""

    def complete(self, expected: int | None) -> bool:
        """All `expected` responses are there (None: any whole, non-empty dump is)."""
        if not self.ends_whole or self.problem is not None or self.rows == 0:
            return False
        return expected is None or self.rows >= expected

    def final(self, expected: int | None) -> bool:
        """Complete and without padding rows, so verl has written its last line."""
        return self.complete(expected) and self.padding == 0

    @property
    def rate(self) -> float:
        return self.valid / self.rows if self.rows else 0.0


def verdict(row: dict[str, Any], feed: TaskFeed) -> float | None:
    """1.0 or 0.0 for one response, None when the row says nothing to judge it by.

    The reward's own ``valid`` where the dump has it (0.6.1); else the task's verdict on
    ``output`` for the item in ``gts`` (0.9.1's v1 trainer). What judging raises is let
    through (MAPF-FrozenLake's `mapf_env.AnswerKeyError`, a plan cheaper than the recorded
    optimum): the reward raises it too, for a dataset that must stop the run.
    """
    flag = row.get(VALID_KEY)
    if isinstance(flag, bool | int | float):
        return float(flag)
    truth, output = row.get(TRUTH_KEY), row.get(OUTPUT_KEY)
    if not isinstance(truth, str) or not isinstance(output, str):
        return None
    try:
        item = feed.decode(truth)
    except ValueError:
        return None
    return 1.0 if feed.task.judge(item, output).valid else 0.0


def _padding(row: dict[str, Any]) -> bool:
    uid = row.get(UID_KEY)
    return isinstance(uid, str) and uid.startswith(PADDING_UID)


def read_dump(path: Path, feed: TaskFeed, expected: int | None = None) -> Dump | None:
    """The dump at `path` as it is now; None when there is no file. Verdicts are computed only
    once the dump is complete for `expected` responses (a partial one is re-read later), each
    through `feed`'s task where the row does not carry it."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    end = data.rfind(b"\n") + 1
    rows: list[dict[str, Any]] = []
    padding = 0
    for number, line in enumerate(data[:end].decode("utf-8", errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            row = None
        if not isinstance(row, dict):
            return Dump(len(rows), 0.0, padding, end == len(data), f"line {number} does not read")
        if _padding(row):
            padding += 1
        else:
            rows.append(row)
    dump = Dump(len(rows), 0.0, padding, end == len(data) and end > 0)
    if not dump.complete(expected):
        return dump
    flags = [verdict(row, feed) for row in rows]
    if any(flag is None for flag in flags):
        missing = flags.index(None) + 1
        return Dump(dump.rows, 0.0, padding, True, f"response {missing} has no verdict")
    return Dump(dump.rows, sum(f for f in flags if f is not None), padding, True)


def _stat(path: Path) -> StatKey | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class DumpFiles:
    """A round's dump directory, with the files an exited trainer process left told apart."""

    def __init__(self, directory: Path, feed: TaskFeed) -> None:
        self.directory = directory
        self.feed = feed
        self._seen: dict[int, StatKey] = {}
        self._stale: dict[int, StatKey] = {}

    def path(self, step: int) -> Path:
        return dump_file(self.directory, step)

    def _present(self) -> dict[int, StatKey]:
        found: dict[int, StatKey] = {}
        for path in self.directory.glob("*.jsonl"):
            key = _stat(path)
            if path.stem.isdigit() and key is not None:
                found[int(path.stem)] = key
        return found

    def snapshot(self) -> None:
        """Remember every dump as it is now (at each poll)."""
        self._seen = self._present()

    def retire(self) -> None:
        """The process that wrote the files seen at the last snapshot has exited: those not
        changed since are left-overs, never evidence for a later attempt's steps."""
        for step, key in self._seen.items():
            if _stat(self.path(step)) == key:
                self._stale[step] = key

    def fresh(self, step: int) -> bool:
        """There is a dump of `step` and it is not a left-over of an exited process."""
        key = _stat(self.path(step))
        return key is not None and self._stale.get(step) != key

    def unchanged(self, step: int) -> bool:
        """The dump of `step` is as the last snapshot saw it (or still absent)."""
        return _stat(self.path(step)) == self._seen.get(step)

    def read(self, step: int, expected: int | None) -> Dump | None:
        """The dump of `step` if it is fresh, else None."""
        return read_dump(self.path(step), self.feed, expected) if self.fresh(step) else None

    def delete(self, step: int) -> None:
        self.path(step).unlink(missing_ok=True)
        self._seen.pop(step, None)
        self._stale.pop(step, None)
