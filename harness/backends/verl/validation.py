"""The round's validation answers from verl's own validation, instead of a separate vLLM load.

With ``validate_in_verl`` the trainer validates once, after the round's last step, on the
round's ``val.parquet`` (the validation suite) and dumps every answer to
``trainer.validation_data_dir`` (``round-NNN/validation/<step>.jsonl``). What verl does there,
read in its sources:

* verl 0.6.1 (``RayPPOTrainer.fit``): on the last step the actor is updated, then
  ``_validate()`` runs, then ``_save_checkpoint()``; the rollout engine gets the actor's
  weights before it generates, so the validation answers come from exactly the weights the
  checkpoint (and its Hugging Face copy, the next round's model) saves. verl 0.9.1 saves first,
  pushes the weights to the rollout replicas, then validates: the same weights.
* Sampling: ``rollout.val_kwargs`` defaults to ``do_sample: false``, ``n: 1``; with
  ``do_sample`` false the vLLM rollout sets temperature 0, top_p 1, top_k -1, n 1 -- greedy, as
  the harness's own evaluation (`generate`, temperature 0). The prompt is the dataset's chat
  messages through the model's chat template with ``data.apply_chat_template_kwargs`` (the same
  ``enable_thinking``), and the budget is ``data.max_response_length``, the generator's
  ``max_tokens``. So the answers are the ones a separate greedy vLLM pass would give, up to the
  floating-point differences any two vLLM engines with different batch layouts can show.
* The dump (`layout`): one JSON line per answer with ``output`` (the decoded answer, special
  tokens skipped) and ``gts`` (the row's ``reward_model.ground_truth``: the item's text as the
  task wrote it, `task_feed`), among others. 0.6.1 keeps the set's order, 0.9.1 orders by a
  random uid, so rows are matched to items by that text, never by position. 0.9.1 writes dumps
  from a thread drained before the trainer exits; the backend reads the file only after the
  training process ended.

`read_dump` accepts a dump only when it answers every asked item exactly once; otherwise
it says what is missing, and the backend answers with a separate vLLM pass and writes why into
its log and the round's record -- never a report from part of the suite.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.backends.verl.layout import OUTPUT_KEY, TRUTH_KEY
from harness.backends.verl.task_feed import TaskFeed

TESTING_SECONDS = "timing_s/testing"
"""verl's timer of ``_validate()`` in a step's metrics (both lines)."""


def read_dump(path: Path, items: Sequence[Any], feed: TaskFeed) -> tuple[list[str] | None, str]:
    """The dump's answer for each of `items`, in order, or None and why not."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return None, f"verl wrote no validation dump at {path}"
    found: dict[str, list[str]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            truth, answer = row[TRUTH_KEY], row[OUTPUT_KEY]
        except (ValueError, KeyError, TypeError) as err:
            return None, f"{path} line {number} does not read ({type(err).__name__}: {err})"
        if not isinstance(truth, str) or not isinstance(answer, str):
            return (
                None,
                f"{path} line {number} does not read (its {TRUTH_KEY} or {OUTPUT_KEY} is not text)",
            )
        found.setdefault(truth, []).append(answer)
    answers = []
    for i, item in enumerate(items):
        rows = found.get(feed.truth(item), [])
        if len(rows) != 1:
            what = "no answer" if not rows else f"{len(rows)} answers (val_kwargs.n must be 1)"
            return None, f"{path} has {what} for item #{i} of the validation suite"
        answers.append(rows[0])
    return answers, f"{len(answers)} answers from {path}"


def logged_seconds(metrics: Sequence[Path], step: int, key: str = TESTING_SECONDS) -> float | None:
    """`key` of `step` in verl's file-logger files (the last attempt's line wins)."""
    value = None
    for path in metrics:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError:
            continue
        for line in lines:
            try:
                row = json.loads(line)
                if row.get("step") == step and key in row.get("data", {}):
                    value = float(row["data"][key])
            except (ValueError, TypeError, AttributeError):
                continue  # a line cut by a crash
    return value


class PendingValidation:
    """A finished round's validation dump, waiting for the round's evaluation to ask for it."""

    def __init__(self, path: Path, model: str, log: Path, feed: TaskFeed) -> None:
        self.path, self.model, self.log, self.feed = path, model, log, feed

    def answers(self, items: Sequence[Any], model: str) -> tuple[list[str] | None, str]:
        """The dump's answers for `items` from `model`, or None; and one line saying which
        (also appended to the log)."""
        if model != self.model:
            answers, why = None, f"the dump is {self.model}'s, the answers are asked of {model}"
        else:
            answers, why = read_dump(self.path, items, self.feed)
        if answers is not None:
            line = f"validation answers from verl's own validation, no vLLM load: {why}"
        else:
            line = f"validation answers from a separate vLLM pass: {why}"
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log, "a", encoding="utf-8") as f:
            f.write(f"\n# {time.strftime('%Y-%m-%d %H:%M:%S')} {line}\n")
        return answers, line
