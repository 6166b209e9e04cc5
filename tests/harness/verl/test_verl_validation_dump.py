"""The validation dump written by the installed verl's own writer, read back by the backend.

``RayPPOTrainer._dump_generations`` (0.6.1) or its writer thread's ``_write_generations``
(0.9.1) is called on rows built as ``_validate`` builds them -- the decoded prompts and answers,
the rows' ``reward_model.ground_truth``, the scores and the reward's extra lists -- in an order
other than the validation set's; `read_dump` must give every instance its own answer, and the
stand-in `fake_verl.py` must write lines with the same keys as verl's writer.
"""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from pathlib import Path
from typing import Any

from verl.trainer.ppo.ray_trainer import RayPPOTrainer

from harness.backends.verl.layout import dump_file
from harness.backends.verl.reward import compute_score
from harness.backends.verl.validation import read_dump
from mapf_env import load_suite, write_parquet
from mapf_env.export import to_record
from tests.harness.verl.cases import MAPF_FEED
from tests.harness.verl.stand_in import answer

HERE = Path(__file__).resolve().parent
STEP = 93


def verl_dump(rows: list[dict[str, Any]], directory: Path) -> Path:
    """Write `rows` with verl's own dump writer, as `_validate` hands them over."""
    extra: dict[str, list[Any]] = {"reward": [r["score"]["score"] for r in rows]}
    for key in rows[0]["score"]:
        extra[key] = [r["score"][key] for r in rows]
    args = ([r["input"] for r in rows], [r["output"] for r in rows], [r["gts"] for r in rows],
            [r["score"]["score"] for r in rows], extra, str(directory))  # fmt: skip

    class Trainer:
        global_steps = STEP

    if hasattr(RayPPOTrainer, "_write_generations"):  # 0.9.1: the writer thread's (static)
        RayPPOTrainer._write_generations(*args, STEP)
    else:
        RayPPOTrainer._dump_generations(Trainer(), *args)
    return dump_file(directory, STEP)


def fake_verl_module() -> Any:
    sys.path.insert(0, str(HERE))  # fake_verl imports stand_in as its own script would
    spec = importlib.util.spec_from_file_location("fake_verl_for_test", HERE / "fake_verl.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_verls_own_dump_reads_back_instance_by_instance(tmp_path: Path) -> None:
    instances = [item.instance for item in load_suite("validation").items][:12]
    rows = []
    for i, inst in enumerate(instances):
        record = to_record(inst, i, "validation")
        truth = record["reward_model"]["ground_truth"]
        text = answer("the-model", inst)
        score = compute_score(record["data_source"], text, truth, record["extra_info"])
        prompt = "\n".join(m["content"] for m in record["prompt"])
        rows.append({"input": prompt, "output": text, "gts": truth, "score": score})
    shuffled = rows[:]
    random.Random(0).shuffle(shuffled)
    path = verl_dump(shuffled, tmp_path / "verl")
    answers, why = read_dump(path, instances, MAPF_FEED)
    assert answers == [r["output"] for r in rows], why

    val = tmp_path / "val.parquet"
    write_parquet(instances, val, split="validation")
    cfg = {"data.val_files": str(val), "trainer.validation_data_dir": str(tmp_path / "fake"),
           "trainer.default_local_dir": str(tmp_path / "ckpt"), "data.seed": 1}  # fmt: skip
    fake_verl_module().validate(cfg, STEP, compute_score, {}, MAPF_FEED.task)
    fake = json.loads(dump_file(tmp_path / "fake", STEP).read_text().splitlines()[0])
    real = json.loads(path.read_text().splitlines()[0])
    assert set(fake) == set(real)  # the stand-in writes verl's keys
    assert read_dump(dump_file(tmp_path / "fake", STEP), instances, MAPF_FEED)[0] is not None
