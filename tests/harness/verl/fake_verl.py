"""A stand-in for ``python -m verl.trainer.main_ppo``: writes what verl 0.6.1 would write.

Run as a script with the round's Hydra overrides. It reads the overrides the harness passes,
loads the reward entry point from ``custom_reward_function.path`` exactly as verl does (by file
path, with the ``reward_kwargs``), and for every step of the round (rows // train_batch_size
per epoch, times total_epochs), resuming after ``latest_checkpointed_iteration.txt`` with
``resume_mode=auto``:

* scores ``rollout.n`` answers per prompt -- the task's reference answer for even rows, prose
  for odd ones -- with the reward function and dumps them to ``rollout_data_dir/<step>.jsonl``
  (the task: the one the reward's keywords name, else MAPF-FrozenLake);
* writes the step's metrics as verl's ``file`` logger does (``$VERL_FILE_LOGGER_PATH``, mode w),
  under verl 0.6.1's keys: the KL as ``actor/kl_loss`` only when it is in the loss, as
  ``actor/reward_kl_penalty`` only when it is in the reward;
* with ``trainer.validation_data_dir`` and ``trainer.test_freq`` > 0, validates as
  ``RayPPOTrainer._validate`` does at the last step and every ``test_freq`` steps (and at step 0
  with ``val_before_train``): every row of ``data.val_files``, shuffled (0.9.1 orders the dump
  by a random uid; the harness must match rows by ``gts``), answered by the stand-in policy
  (`stand_in.py`, the one `fake_vllm.py` answers with) as the model the step saves, scored by
  the reward function, dumped to ``<validation_data_dir>/<step>.jsonl`` with
  ``_dump_generations``'s keys, and timed in the step's metrics as ``timing_s/testing``;
  before the step's checkpoint, as in verl 0.6.1;
* saves ``global_step_<N>/actor/huggingface/config.json`` and the tracker every ``save_freq``
  steps and at the last step, keeping ``max_actor_ckpt_to_keep`` checkpoints.

Each start is appended to ``<default_local_dir>/fake_verl_calls.jsonl`` (the model it started
from, the reward's valid rate, the first step, the validation settings, the environment verl
would see). Like verl, it opens the file logger's file only once it has "loaded".
``FAKE_VERL_CRASH_AT=<step>`` exits with code 3 after logging that step, before saving it:
once (a marker file beside the calls file remembers it), or every time with
``FAKE_VERL_CRASH_ALWAYS=1``. ``FAKE_VERL_SKIP_DUMP_AT=<step>`` writes no rollout dump for that
step (a dump lost, as a full disk would lose it).
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
from stand_in import answer

from tasks import DEFAULT_TASK, create_task

WATCHED_ENV = (
    "NCCL_CUMEM_ENABLE",
    "RAY_ADDRESS",
    "VERL_FILE_LOGGER_PATH",
    "TOKENIZERS_PARALLELISM",
)


def _value(text: str) -> Any:
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("\\'", "'")
    if text.startswith("[") and text.endswith("]"):
        return [_value(t) for t in text[1:-1].split(",") if t]
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return {"true": True, "false": False, "null": None}.get(text, text)


def overrides(argv: list[str]) -> dict[str, Any]:
    out = {}
    for arg in argv:
        key, _, raw = arg.partition("=")
        out[key.lstrip("+")] = _value(raw)
    return out


def load_reward(cfg: dict[str, Any]) -> Any:
    spec = importlib.util.spec_from_file_location(
        "custom_module", cfg["custom_reward_function.path"]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, cfg["custom_reward_function.name"])


def validates(cfg: dict[str, Any], step: int, total: int) -> bool:
    """Whether verl validates after `step` (``ray_trainer.fit``'s conditions)."""
    if not cfg.get("trainer.validation_data_dir"):
        return False
    if step == 0:
        return bool(cfg.get("trainer.val_before_train", True))
    freq = int(cfg.get("trainer.test_freq", -1))
    return freq > 0 and (step == total or step % freq == 0)


def task_of(kwargs: dict[str, Any]) -> Any:
    """The task the reward's keywords name (MAPF-FrozenLake's reward names none)."""
    if "task" not in kwargs:
        return create_task(DEFAULT_TASK)
    return create_task(kwargs["task"], json.loads(kwargs["task_settings"]) or None)


def validate(
    cfg: dict[str, Any], step: int, compute_score: Any, kwargs: dict[str, Any], task: Any
) -> float:
    """`_validate` and `_dump_generations`: the dump of `step`, and the seconds it took."""
    started = time.perf_counter()
    records = pq.read_table(cfg["data.val_files"]).to_pylist()
    random.Random(cfg.get("data.seed", 1) + step).shuffle(records)  # the shuffling dataloader
    model = str(Path(cfg["trainer.default_local_dir"]) / f"global_step_{step}" / "actor"
                / "huggingface")  # fmt: skip
    n = int(cfg.get("actor_rollout_ref.rollout.val_kwargs.n", 1))
    lines = []
    for record in records:
        truth = record["reward_model"]["ground_truth"]
        text = answer(model, task.decode_item(truth), task)
        for _ in range(n):
            info = record["extra_info"]
            score = compute_score(record["data_source"], text, truth, info, **kwargs)
            row = {"input": "\n".join(m["content"] for m in record["prompt"]), "output": text,
                   "gts": truth, "score": score["score"], "step": step, "reward": score["score"],
                   **score}  # fmt: skip
            lines.append(json.dumps(row, ensure_ascii=False))
    out = Path(cfg["trainer.validation_data_dir"])
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{step}.jsonl").write_text("\n".join(lines) + "\n")
    return time.perf_counter() - started


def main(argv: list[str]) -> int:
    cfg = overrides(argv)
    kwargs = {
        k.removeprefix("custom_reward_function.reward_kwargs."): v
        for k, v in cfg.items()
        if k.startswith("custom_reward_function.reward_kwargs.")
    }
    compute_score = load_reward(cfg)
    task = task_of(kwargs)
    train = Path(cfg["data.train_files"])
    rows = pq.read_metadata(train).num_rows
    batch, n = int(cfg["data.train_batch_size"]), int(cfg["actor_rollout_ref.rollout.n"])
    per_epoch = rows // batch
    total = per_epoch * int(cfg["trainer.total_epochs"])
    save_freq, keep = int(cfg["trainer.save_freq"]), cfg["trainer.max_actor_ckpt_to_keep"]
    ckpt = Path(cfg["trainer.default_local_dir"])
    ckpt.mkdir(parents=True, exist_ok=True)
    tracker = ckpt / "latest_checkpointed_iteration.txt"
    start = 1
    if cfg["trainer.resume_mode"] == "auto" and tracker.exists():
        start = int(tracker.read_text()) + 1
    model = str(cfg["actor_rollout_ref.model.path"])
    call = {
        "model": model,
        "valid_rate": kwargs["valid_rate"],
        "start": start,
        "seed": cfg["data.seed"],
        "logger": cfg["trainer.logger"],
        "validation": {
            "dir": cfg.get("trainer.validation_data_dir"),
            "test_freq": cfg.get("trainer.test_freq", -1),
            "do_sample": cfg.get("actor_rollout_ref.rollout.val_kwargs.do_sample", False),
            "n": cfg.get("actor_rollout_ref.rollout.val_kwargs.n", 1),
        },
        "env": {k: os.environ.get(k) for k in WATCHED_ENV},
    }
    with open(ckpt / "fake_verl_calls.jsonl", "a") as f:
        f.write(json.dumps(call) + "\n")
    if Path(model).is_absolute() and not (Path(model) / "config.json").is_file():
        print(f"no model at {model}", file=sys.stderr)
        return 1
    records = pq.read_table(train).to_pylist()
    rollouts = Path(cfg["trainer.rollout_data_dir"])
    rollouts.mkdir(parents=True, exist_ok=True)
    crash_at = int(os.environ.get("FAKE_VERL_CRASH_AT", "0"))
    marker = ckpt / "fake_verl_crashed"
    logger = open(os.environ["VERL_FILE_LOGGER_PATH"], "w")  # noqa: SIM115 (as verl: mode w)
    if start == 1 and validates(cfg, 0, total):
        validate(cfg, 0, compute_score, kwargs, task)
    for step in range(start, total + 1):
        epoch = (step - 1) // per_epoch
        lo = ((step - 1) % per_epoch) * batch
        lines, scores = [], []
        for row, record in enumerate(records[lo : lo + batch], lo):
            truth = record["reward_model"]["ground_truth"]
            reference = task.reference_answer(task.decode_item(truth)) or ""
            text = reference if row % 2 == 0 else "I cannot solve this one."
            for _ in range(n):
                score = compute_score(record["data_source"], text, truth, {}, **kwargs)
                scores.append(score["score"])
                lines.append(json.dumps({"input": "...", "output": text, **score, "step": step}))
        if step != int(os.environ.get("FAKE_VERL_SKIP_DUMP_AT", "0")):
            (rollouts / f"{step}.jsonl").write_text("\n".join(lines) + "\n")
        metrics = {
            "critic/score/mean": sum(scores) / len(scores),
            "actor/pg_loss": -0.5 / step,
            "actor/lr": cfg["actor_rollout_ref.actor.optim.lr"],
            "training/epoch": epoch,
            "training/global_step": step,
            "timing_s/step": 0.01,
        }
        if cfg["actor_rollout_ref.actor.use_kl_loss"]:  # dp_actor.update_policy
            metrics["actor/kl_loss"] = 0.001 * step
            metrics["actor/kl_coef"] = cfg["actor_rollout_ref.actor.kl_loss_coef"]
        if cfg["algorithm.use_kl_in_reward"]:  # ray_trainer.apply_kl_penalty
            metrics["actor/reward_kl_penalty"] = 0.002 * step
            metrics["actor/reward_kl_penalty_coeff"] = cfg["algorithm.kl_ctrl.kl_coef"]
        if validates(cfg, step, total):  # after the update, before the checkpoint (0.6.1)
            metrics["timing_s/testing"] = validate(cfg, step, compute_score, kwargs, task)
        logger.write(json.dumps({"step": step, "data": metrics}) + "\n")
        if step == crash_at and (os.environ.get("FAKE_VERL_CRASH_ALWAYS") or not marker.exists()):
            marker.touch()
            logger.close()
            print(f"fake verl: crashing at step {step}", file=sys.stderr)
            return 3
        if step % save_freq == 0 or step == total:
            hf = ckpt / f"global_step_{step}" / "actor" / "huggingface"
            hf.mkdir(parents=True, exist_ok=True)
            (hf / "config.json").write_text(json.dumps({"fake": True, "step": step}))
            tracker.write_text(str(step))
            saved = sorted(ckpt.glob("global_step_*"), key=lambda p: int(p.name.split("_")[-1]))
            for old in saved[: -int(keep)] if keep else []:
                shutil.rmtree(old)
    logger.close()
    print(f"fake verl: trained steps {start}..{total}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
