"""reasoning-gym through the verl backend, end to end, with the stand-ins for verl and vLLM.

The loop runs two rounds of a teacher on the task: each round's parquet holds the task's rows
(its items as text), the trainer loads the task's reward file by path with the task's id and
settings as keywords (`fake_verl.py` scores every rollout with it, as verl would), the curves'
valid rate is read back from the rollout dumps through the task's judge, the round's validation
from verl's own dump, matched to the suite's items by their text; records read back and resume.
What verl and vLLM do on a GPU is not run here: the reward file's path through verl's own reward
manager and reward loop is `test_verl_task_reward_manager.py` and
`test_verl_current_task_reward_loop.py`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.backends.verl.backend import VerlBackend
from harness.backends.verl.task_feed import TASK_REWARD_MODULE
from harness.backends.verl.task_rows import read_truths
from harness.experiment import ExperimentConfig
from harness.loop import run_designer
from harness.run_dir import RunDir
from run_records import TrainStep, read_result
from tasks import CutReport
from tests.harness.verl.test_orchestration import SMALL, calls, fake_logs, runtime

pytest.importorskip("reasoning_gym", reason="the reasoning-gym extra is not installed")

GYM = {**SMALL, "name": "tiny-verl-gym", "task": "reasoning-gym", "validation": "rg-validation",
       "benchmarks": ["rg-eval"], "limit": 12, "designer_options": {}}  # fmt: skip


def test_a_teacher_designs_reasoning_gym_rounds_trained_through_verl(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_logs(tmp_path, monkeypatch)
    exp = ExperimentConfig.from_mapping(GYM)
    task = exp.task_object
    run = RunDir(tmp_path / "runs", exp, "learning-progress", 0)
    backend = VerlBackend(exp, run.path, runtime())
    record = run_designer(exp, "learning-progress", 0, backend, run, workers=1)

    # the round's files: the task's rows and reward file, the reward keywords naming the task
    first = backend.round_dir(0)
    truths = read_truths(first / "train.parquet")
    assert len(truths) == exp.samples_per_round
    assert [task.encode_item(task.decode_item(t)) for t in truths] == truths
    assert (first / "reward.py").read_bytes() == TASK_REWARD_MODULE.read_bytes()
    assert calls(backend, 0)[0]["valid_rate"] == 0.0 and calls(backend, 1)[0]["start"] == 1

    # curves from the dumps, judged by the task: the stand-in trainer answers even rows with
    # the item's reference answer, where reasoning-gym gives one
    lines = [line for n in (0, 1) for line in run.curves(n).read_text().splitlines()]
    steps = [TrainStep.model_validate_json(line) for line in lines]
    assert len(steps) == 2 * 8 and all(0.0 <= s.valid_rate <= 0.5 for s in steps)
    assert any(s.valid_rate > 0 for s in steps), "some reference answers score full marks"

    # validation from verl's own dump, a report in the task's model; the teacher designed
    assert all(isinstance(r.validation, CutReport) for r in record.rounds)
    for r in record.rounds:
        assert r.timings is not None
        assert any("from verl's own validation" in note for note in r.timings.notes), r.timings
    proposal = record.rounds[0].proposal
    assert proposal is not None and not proposal.design_failed, proposal.failures
    assert record.rounds[1].config == proposal.config
    assert len(record.suites["rg-eval"].verdicts) == 12
    assert read_result(run.path / "result.json") == record
    resumed = VerlBackend(exp, run.path, runtime())
    again = run_designer(exp, "learning-progress", 0, resumed, run, resume=True, workers=1)
    assert again == record and len(calls(backend, 1)) == 1, "nothing trained again"
