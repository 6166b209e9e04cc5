"""The reward entry point verl loads for a task other than MAPF-FrozenLake: it rebuilds the task
from its id and settings and the item from the row's text, and pays what the task pays.

verl itself is not needed: the function is called as verl's reward managers call it (positional
row fields, then ``reward_kwargs``), in this process and in a fresh one that imports nothing but
the file.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.backends.verl import task_reward
from harness.backends.verl.task_reward import compute_score, scored_keys
from tasks import HOSTILE_ANSWERS, create_task
from tasks.mapf_frozenlake import MapfFrozenLake
from tasks.reasoning_gym import ReasoningGym

MODULE = Path(task_reward.__file__)


@pytest.fixture(scope="module")
def rg() -> ReasoningGym:
    """The reasoning-gym task, where its extra is installed (the verl CI jobs install verl's
    own pins, not it; the main job runs these tests with it)."""
    pytest.importorskip("reasoning_gym", reason="the reasoning-gym extra is not installed")
    made = create_task("reasoning-gym")
    assert isinstance(made, ReasoningGym)
    return made


def test_it_pays_what_the_task_pays_with_its_judgement_beside(
    rg: ReasoningGym,
) -> None:
    task = rg
    settings = task.settings.model_dump_json()
    items = [s.item for s in task.suite("rg-validation").items[:12]]
    for item in items:
        truth = task.encode_item(item)
        for answer in (task.reference_answer(item) or "", *HOSTILE_ANSWERS):
            got = compute_score("any", answer, truth, {"index": 0}, task=task.id,
                                task_settings=settings, valid_rate=0.3)  # fmt: skip
            judged = task.judge(item, answer)
            assert tuple(got) == scored_keys(task), "the same keys for every response"
            assert got["score"] == task.reward(item, answer, valid_rate=0.3)
            assert got["valid"] == float(judged.valid) and got["task_score"] == judged.score
            assert sum(v for k, v in got.items() if k.startswith("fail_")) == (not judged.valid)
    answered = [i for i in items if i.answer is not None]
    assert answered, "the suite's first items carry reference answers"
    truth = task.encode_item(answered[0])
    best = compute_score("any", task.reference_answer(answered[0]) or "", truth, task=task.id,
                         task_settings=settings)  # fmt: skip
    assert best["valid"] == 1.0 and best["task_score"] == 1.0


def test_mapf_rows_score_as_the_task_scores_them() -> None:
    task = create_task("mapf-frozenlake")
    assert isinstance(task, MapfFrozenLake)
    instance = task.suite("validation").items[0].item
    answer = task.reference_answer(instance) or ""
    got = compute_score("mapf_frozenlake", answer, task.encode_item(instance),
                        task="mapf-frozenlake-v2", task_settings={}, valid_rate=0.5)  # fmt: skip
    assert got["valid"] == 1.0 and got["optimal_soc"] == 1.0
    assert got["score"] == task.reward(instance, answer, valid_rate=0.5)


def test_what_is_not_its_input_stops_the_run(rg: ReasoningGym) -> None:
    task = rg
    truth = task.encode_item(task.suite("rg-validation").items[0].item)
    settings = task.settings.model_dump_json()
    with pytest.raises(ValueError, match="not the item text"):
        compute_score("x", "1", {"question": "?"}, task=task.id, task_settings=settings)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not one of the datasets"):
        other = json.dumps({**json.loads(truth), "dataset": "figlet_font"})
        compute_score("x", "1", other, task=task.id, task_settings=settings)
    with pytest.raises(ValueError, match="not a mapping"):
        compute_score("x", "1", truth, task=task.id, task_settings="[1]")
    with pytest.raises(LookupError):
        compute_score("x", "1", truth, task="no-such-task-v1")


def test_verl_can_load_it_by_path_in_a_fresh_process(rg: ReasoningGym) -> None:
    """As verl does: importlib from the file's path under another module name, nothing else."""
    task = rg
    item = next(s.item for s in task.suite("rg-validation").items if s.item.answer is not None)
    row = {"truth": task.encode_item(item), "answer": task.reference_answer(item),
           "settings": task.settings.model_dump_json(), "task": task.id}  # fmt: skip
    script = (
        "import importlib.util, json, sys\n"
        f"spec = importlib.util.spec_from_file_location('custom_module', {str(MODULE)!r})\n"
        "module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)\n"
        "row = json.loads(sys.stdin.read())\n"
        "print(json.dumps(module.compute_score('rg', row['answer'], row['truth'], None,"
        " task=row['task'], task_settings=row['settings'])))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], input=json.dumps(row),
                          capture_output=True, text=True, check=True)  # fmt: skip
    assert json.loads(done.stdout)["valid"] == 1.0
