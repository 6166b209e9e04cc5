"""The curriculum teachers on a task they were not written for: reasoning-gym's datasets are
the arms, their levels the levers, the reports the real scorers' verdicts on the validation
suite (each dataset's reference answer, or an empty one), and what a teacher needs of a task
or names in its options is checked before any training."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from designers import DesignContext, RoundRecord, create_designer, task_problem
from designers.arms import task_arms
from designers.builtin.learning_progress import LearningProgressDesigner
from designers.builtin.regret import RegretDesigner
from tasks import DEFAULT_TASK, CutReport, cached_task
from tasks.reasoning_gym import ReasoningGym
from tasks.reasoning_gym.config import DatasetSetting, RgConfig, RgStats

pytest.importorskip("reasoning_gym")


@pytest.fixture
def task(reasoning_gym_task: ReasoningGym) -> ReasoningGym:
    return reasoning_gym_task


def solved(task: ReasoningGym, datasets: Iterable[str]) -> CutReport:
    """The validation report when `datasets` are answered with their reference answers and
    every other dataset with nothing: 16 answers a dataset, all valid or all invalid."""
    items = task.suite(task.validation_suite).items
    wanted = set(datasets)
    answers = [
        (task.reference_answer(it.item) or "") if it.item.dataset in wanted else "" for it in items
    ]
    return task.report(items, answers)


def at_level(task: ReasoningGym, level: int) -> RgConfig:
    even = 1 / len(task.datasets)
    datasets = {name: DatasetSetting(weight=even, level=level) for name in task.datasets}
    return RgConfig(samples=40, datasets=datasets)


def context(
    task: ReasoningGym, config: RgConfig, *reports: CutReport
) -> DesignContext[RgConfig, RgStats, CutReport]:
    history = tuple(
        RoundRecord[RgConfig, RgStats, CutReport](round=n, config=config, validation=r)
        for n, r in enumerate(reports[:-1])
    )
    return DesignContext[RgConfig, RgStats, CutReport](
        round=len(reports) - 1, total_rounds=6, config=config, initial_config=config,
        validation=reports[-1], history=history, seed=0, task=task,
    )  # fmt: skip


def test_the_datasets_are_the_arms_and_their_levels_the_levers(task: ReasoningGym) -> None:
    arms = task_arms(task, at_level(task, 2))
    assert [a.name for a in arms] == list(task.datasets)
    assert all([lever.name for lever in a.levers] == ["level"] for a in arms)
    assert task_problem(create_designer("learning-progress"), "learning-progress", task) is None


def test_learning_progress_budgets_the_dataset_being_learnt(task: ReasoningGym) -> None:
    start = at_level(task, 2)
    reports = (solved(task, ["chain_sum"]), solved(task, ["chain_sum", "letter_counting"]))
    proposal = LearningProgressDesigner(explore_share=0.0).propose(context(task, start, *reports))
    after = proposal.config.datasets
    assert not proposal.notes
    others = [after[n].weight for n in task.datasets if n != "letter_counting"]
    assert after["letter_counting"].weight > max(others)  # learnt this round: the most budget
    assert after["letter_counting"].weight == pytest.approx(0.25)  # up to the ceiling
    assert sum(s.weight for s in after.values()) == pytest.approx(1.0)
    assert after["letter_counting"].level == 2  # progressing: where learning happens, kept
    assert after["chain_sum"].level == 3  # stalled at full marks: one level harder
    assert after["word_sorting"].level == 1  # stalled at zero: one level easier
    assert "chain_sum: stalled" in proposal.rationale and "level 2 -> 3" in proposal.rationale


def test_regret_steps_solved_datasets_up_and_lost_ones_down(task: ReasoningGym) -> None:
    top = at_level(task, 4)  # basic_arithmetic's highest level is 4
    report = solved(task, ["basic_arithmetic", "chain_sum"])
    proposal = RegretDesigner().propose(context(task, top, report))
    after = proposal.config.datasets
    assert after["basic_arithmetic"].level == 4  # saturated but at its top: kept
    assert after["chain_sum"].level == 5  # saturated: harder (its curriculum goes to 10)
    assert after["word_sorting"].level == 3  # collapsed: easier
    assert sum(s.weight for s in after.values()) == pytest.approx(1.0)
    assert "chain_sum saturated: harder" in proposal.rationale
    assert "word_sorting 0.000 (0)" in proposal.rationale


def test_options_that_name_what_the_task_lacks_are_refused_before_training(
    task: ReasoningGym,
) -> None:
    typo = create_designer("regret", steps={"datasets.chain_sum.levl": 1})
    [line] = (task_problem(typo, "regret", task) or "").splitlines()
    assert line.startswith("designer 'regret': datasets.chain_sum.levl is not a difficulty knob")
    assert "datasets.chain_sum.level" in line  # the knobs it has
    tight = create_designer("learning-progress", max_ratio=0.1)
    [line] = (task_problem(tight, "learning-progress", task) or "").splitlines()
    assert "max_ratio 0.1 over 5 arms" in line and "at least 0.2" in line
    assert task_problem(create_designer("regret"), "regret", task) is None  # defaults: fine
    assert task_problem(create_designer("regret"), "regret", cached_task(DEFAULT_TASK)) is None
