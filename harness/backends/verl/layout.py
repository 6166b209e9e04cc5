"""What a round of verl leaves on disk and when a file there is whole: what the harness reads.

Checkpoints: both lines save ``<trainer.default_local_dir>/global_step_<N>/actor/`` (FSDP shards,
optimizer and extra state as ``save_contents`` asks, the Hugging Face model under
``huggingface/``), ``global_step_<N>/data.pt`` (the dataloader), and write
``latest_checkpointed_iteration.txt`` (the step number) after a save has finished -- 0.9.1
skips that file when ``checkpoint.async_save`` is on, which the harness never sets.

What verl dumps (``trainer.rollout_data_dir`` each step, ``trainer.validation_data_dir`` after
each validation): one JSON-lines file per step, ``<dir>/<global step>.jsonl`` (`DUMP_FILE`), one
line per response with the keys `DUMP_KEYS` -- ``input`` (the decoded prompt), ``output`` (the
decoded response, special tokens skipped), ``gts`` (``reward_model.ground_truth``: the instance
JSON, which identifies the row), ``score`` (the reward's ``score``), ``step`` -- plus every list
of the reward's extra information as long as the dump:

* validation, both lines: ``reward`` (the score again) and every key `compute_score` returns
  (``score``, the terms, ``valid``, ``optimal``, ``fail_<type>``), `VALIDATION_DUMP_EXTRA`;
  0.9.1 adds ``uid``. Lines are in the validation set's order on 0.6.1 (no shuffle, one
  response each); on 0.9.1 sorted by a random per-prompt uid, so rows are matched by ``gts``.
* rollouts: 0.6.1 adds the reward's keys as above; 0.9.1 adds only ``uid`` (its trainer reads
  just uid, prompts, responses, scores and ground truth back), so there the reward's terms
  must be recomputed from ``output`` and ``gts``.

When a file is whole: 0.6.1 writes each file with one ``write`` before the step's metrics line
reaches the file logger, the last step's validation before its checkpoint. 0.9.1 hands every
dump to one background writer thread (in submission order; each file opened with ``"w"`` and
written line by line), validates after the checkpoint and drains the writer only before it
exits; so a 0.9.1 dump is whole once the next file in the writer's order exists or the trainer
has exited, and a round's validation file only once the trainer exited -- a finished checkpoint
says nothing about it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.backends.verl.batch_plan import BatchPlan

__all__ = [
    "DUMP_FILE",
    "DUMP_KEYS",
    "OUTPUT_KEY",
    "TRACKER",
    "TRUTH_KEY",
    "VALIDATION_DUMP_EXTRA",
    "dump_file",
    "final_hf_model",
    "hf_model_dir",
    "latest_step",
]

DUMP_FILE = "{step}.jsonl"
"""verl's file for one step in ``trainer.rollout_data_dir`` / ``trainer.validation_data_dir``."""
OUTPUT_KEY, TRUTH_KEY = "output", "gts"
"""A dump line's response text and its ground truth (the reward's instance JSON)."""
DUMP_KEYS = ("input", OUTPUT_KEY, TRUTH_KEY, "score", "step")
"""The keys of every line verl dumps, on both lines (see the module docstring)."""
TRACKER = "latest_checkpointed_iteration.txt"
"""The file verl writes in a checkpoint directory after each finished save: the step number."""
VALIDATION_DUMP_EXTRA = ("reward",)
"""Keys a validation line adds besides `DUMP_KEYS` and the keys `compute_score` returns."""


def dump_file(directory: Path, step: int) -> Path:
    """The file verl dumps `step`'s responses to in `directory` (see `DUMP_FILE`)."""
    return directory / DUMP_FILE.format(step=step)


def hf_model_dir(checkpoint_dir: Path, step: int) -> Path:
    """Where verl saves the Hugging Face model of `step` (save_contents includes hf_model)."""
    return checkpoint_dir / f"global_step_{step}" / "actor" / "huggingface"


def latest_step(checkpoint_dir: Path) -> int | None:
    """The last step verl finished saving (its ``latest_checkpointed_iteration.txt``)."""
    tracker = checkpoint_dir / TRACKER
    if not tracker.is_file():
        return None
    text = tracker.read_text(encoding="utf-8").strip()
    if not text.isdigit():
        raise ValueError(f"{tracker} holds {text!r}, not a step number")
    return int(text)


def final_hf_model(checkpoint_dir: Path, plan: BatchPlan) -> Path:
    """The Hugging Face directory of a finished round: the next round's starting model."""
    step = latest_step(checkpoint_dir)
    if step != plan.total_steps:
        raise FileNotFoundError(
            f"{checkpoint_dir} has no checkpoint of the round's last step {plan.total_steps} "
            f"(latest saved: {step}); the round did not finish"
        )
    path = hf_model_dir(checkpoint_dir, step)
    if not (path / "config.json").is_file():
        raise FileNotFoundError(
            f"{path} holds no Hugging Face model; does save_contents include hf_model?"
        )
    return path
