"""reasoning-gym as the verl tests feed it: the preset's experiment, responses of every kind,
a tokenizer trained on them, and a round's files and trainer config, for the reward manager
(verl 0.6) and the reward loop (verl 0.9) alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from harness.backends.verl import RoundInputs, build_overrides
from harness.backends.verl.settings import VerlSettings
from harness.backends.verl.task_feed import TASK_REWARD_MODULE
from harness.backends.verl.task_rows import write_rows
from harness.experiment import ExperimentConfig
from tasks import HOSTILE_ANSWERS
from tests.harness.verl.cases import CHAT_TEMPLATE, REPO, VALID_RATE, compose_verl, installed_target

PRESET = REPO / "configs" / "reasoning_gym_verl.yaml"
Case = tuple[Any, str]


def rg_cases(experiment: ExperimentConfig) -> list[Case]:
    """(item, response): the reference answer where the item has one, the same after a
    reasoning block, prose, and the hostile answers every judge must take."""
    task = experiment.task_object
    items = [s.item for s in task.suite(experiment.validation).items[:10]]
    out: list[Case] = []
    for item in items:
        reference = task.reference_answer(item) or ""
        out += [(item, reference), (item, f"<think>\nlet me see\n</think>\n{reference}"),
                (item, "I cannot tell, sorry.")]  # fmt: skip
    return out + [(items[0], text) for text in HOSTILE_ANSWERS[:4]]


def rg_tokenizer(experiment: ExperimentConfig, cases: list[Case]) -> Any:
    """A byte-level BPE trained on the cases' prompts and responses (decoding is exact)."""
    from benchmarks.gpu_smoke import train_tokenizer

    task = experiment.task_object
    corpus = [m["content"] for item, _ in cases for m in task.prompt(item)]
    return train_tokenizer(corpus + [text for _, text in cases], 600, CHAT_TEMPLATE)


def rg_round(
    experiment: ExperimentConfig, cases: list[Case], tmp_path: Path, model_path: str | None = None
) -> tuple[Any, list[dict[str, Any]]]:
    """Round 1's trainer config composed as main_ppo composes it, with the round's files
    written as the backend writes them (the task's rows, a copy of its reward file); and the
    training rows, one per case, as verl's dataset reads them."""
    task = experiment.task_object
    train, val = tmp_path / "train.parquet", tmp_path / "val.parquet"
    write_rows(task, [item for item, _ in cases], train, "train")
    write_rows(task, [item for item, _ in cases[:3]], val, "validation")
    reward_copy = tmp_path / "reward.py"
    reward_copy.write_bytes(TASK_REWARD_MODULE.read_bytes())
    start = {} if model_path is None else {"model_path": model_path}
    inputs = RoundInputs(round=1, train_files=train, val_files=val,
                         checkpoint_dir=tmp_path / "ckpt", valid_rate=VALID_RATE,
                         reward_path=reward_copy, **start)  # fmt: skip
    settings = VerlSettings()
    overrides = build_overrides(experiment, settings, inputs, target=installed_target(settings))
    return compose_verl(overrides), pq.read_table(train).to_pylist()
