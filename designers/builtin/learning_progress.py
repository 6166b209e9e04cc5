"""`learning-progress`: a teacher-student bandit that gives the budget to the arms being learnt.

Teacher-Student Curriculum Learning (Matiisen et al., 2017, "Teacher-Student Curriculum
Learning") treats each sub-task as an arm of a bandit whose reward is the student's learning
progress on it, and samples tasks by the *absolute* progress, so a task being forgotten draws
practice as surely as one being learnt. ALP-GMM (Portelas et al., 2019, "Teacher algorithms for
curriculum learning of Deep RL in continuously parameterized environments") does the same over
a continuous parameter space with absolute learning progress (ALP), and keeps a fixed share of
random tasks so that no region is judged once and never again. Here the tasks are the task's
*arms*, the values of its first cut that have a share of the budget (`designers.arms`:
MAPF-FrozenLake's eight map sizes, reasoning-gym's datasets); the student is the policy, and
the progress is read from the validation report. The text below says "size" for an arm, as on
MAPF-FrozenLake, and "holes and waits" for its difficulty levers (reasoning-gym: the level).

What was adapted. Both papers sample a task per episode and update after it; the harness trains
a whole round on one configuration, so the teacher chooses a round-level *distribution* (the
sizes' ratios) after each round, and the progress of a size is the change of its validation
score between two rounds, not between two episodes of that task. The validation set measures
every size every round, so no size's estimate goes stale for want of being sampled.

1. Score. A size's score in a report is `valid_weight` x valid rate + (1 - `valid_weight`) x
   optimal rate (in the sense the task's reward pays, `Task.reward_optimum`; a task without one
   reads the valid rate twice): the benchmarks rank both, and a policy that turns valid
   answers into optimal ones is learning even when its valid rate stands still. A size with
   fewer than `min_answers` answers in a report has no score there (a handful of answers is
   noise).
2. Progress. The change of a size's score between consecutive rounds (the previous report is
   ``ctx.history[-1].validation``), averaged over the whole history as TSCL's online algorithm
   does: Q <- `smoothing` x change + (1 - `smoothing`) x Q, starting from the first change
   measured. The signed changes are averaged and the absolute value taken last (|Q|), so the
   round-to-round noise of 50 answers a size partly cancels while steady learning or steady
   forgetting adds up; `smoothing` 1 reads the last change only. The history is re-read every
   round, so the designer keeps no state and a resumed run designs as the uninterrupted one.
   A size without a measured change (round 0 has no earlier report; a size short of answers in
   either report) is given the mean |Q| of the measured sizes: neither favoured nor starved.
3. Budget. A Boltzmann distribution over |Q| at `temperature` (TSCL's exploration by
   temperature): the sizes with the most progress get the most budget, and a lower temperature
   follows the signal harder. Then `explore_share` of the budget goes to one size drawn at
   random (ALP-GMM's random share, TSCL's epsilon), from the run's seed and the round alone, so
   a seed repeats its curriculum and the explored size changes from round to round. Last, the
   ratios are renormalised into [`min_ratio`, `max_ratio`] (a default the arms cannot fill, a
   ceiling of 0.25 over three datasets, widens to the even split): the floor keeps every size
   trained (the benchmarks score all of them, and a size the teacher starves can show no
   progress to win its budget back), the ceiling keeps one noisy estimate from taking over the
   round.
   Round 0, with no progress measured anywhere, gets the uniform budget plus the explored
   share: the bandit's start, every arm alike.
4. Holes and waits, from the same signal. A size whose |Q| is at most `stall_share` of the
   measured sizes' mean has stalled: its mix no longer teaches. Its score says which way to
   move: at or above `mastered_at` it is mastered and each lever steps toward its harder end
   (the way its knob declares: hole_ratio and wait_ratio up), below it is out of reach and
   steps toward the easier end. A lever steps by `steps[path]` within `ranges[path]` (by
   default MAPF-FrozenLake's holes by 0.05 within [0.1, 0.5] and waits by 0.05 within
   [0.25, 0.75], the benchmarks' own range; another knob by `step_share` of its bounds, within
   them); a value outside its range comes back toward it. A size still progressing, or without
   a measured change, keeps its mix: it is where learning happens.

Without a validation report it keeps the configuration. Arms finer than the first cut (bins of
hole and wait ratios within a size) would need per-instance answers in the report; reports
count answers per value of the first cut, so those values are the arms.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Annotated, Any, ClassVar, TypeVar

from pydantic import BaseModel, Field

from designers.arms import Arm, arm_rates, as_draft, bounded_shares, solved_rate, task_arms
from designers.base import RuleDesigner
from designers.context import DesignContext
from designers.teacher_options import TeacherOptions, step_lever
from envdesign_common.seeds import key_seed
from mapf_env.config import MAX_HOLE_RATIO
from tasks import Rates, Task

Share = Annotated[float, Field(ge=0, le=1)]
"""A share of something: a number in [0, 1]."""
T = TypeVar("T")

HOLES, WAITS = "sizes.*.hole_ratio", "sizes.*.wait_ratio"


class LearningProgressOptions(TeacherOptions):
    """Every setting of the learning-progress teacher (see the module docstring for the rules).

    The defaults of `temperature` and `smoothing`, the two that decide how hard the budget
    follows a noisy signal, were chosen on the validation set only (the 2-agent `validation`
    suite as the final suite, quick preset, seeds 0 and 1, greedy answers; never the 3/4/5-agent
    benchmarks). Final valid / SOC-optimal Sum: temperature 0.01 with smoothing 0.5, 46.8 /
    46.0; 0.03 with 0.5, 47.4 / 46.9; 0.03 with 1 (the last change only), 45.8 / 44.4; the
    fixed `random` start kept, 46.5 / 46.1. Each 95% interval spans about 7 points at two seeds,
    so the sweep rules out nothing large and picks 0.03 and 0.5; averaging the changes did
    better than reading the last one alone, as the noise of 50 answers a size predicts.
    """

    valid_weight: Share = Field(
        0.5,
        description="Weight of the valid rate in an arm's score; the optimal rate has the rest.",
    )
    smoothing: float = Field(
        0.5,
        gt=0,
        le=1,
        description="Weight of the newest change in the moving average of an arm's progress (1: "
        "the last change only).",
    )
    temperature: float = Field(
        0.03,
        gt=0,
        description="Boltzmann temperature over the arms' absolute progress; lower follows the "
        "signal harder.",
    )
    explore_share: Share = Field(
        0.2, description="Share of the budget given to one arm drawn from the seed and round."
    )
    min_ratio: Share = Field(
        0.05, description="Floor of any arm's share, so none starves (at most 1 / arms)."
    )
    max_ratio: Share = Field(0.25, description="Ceiling of any arm's share (at least 1 / arms).")
    min_answers: int = Field(
        5, ge=1, description="Answers an arm needs in a report before its score counts."
    )
    stall_share: float = Field(
        0.5,
        ge=0,
        description="Share of the mean absolute progress at or under which an arm has stalled "
        "and its levers move.",
    )
    mastered_at: Share = Field(
        0.5, description="Score at or above which a stalled arm gets harder (below: easier)."
    )
    steps: dict[str, float] = Field(
        default_factory=lambda: {HOLES: 0.05, WAITS: 0.05},
        description=TeacherOptions.model_fields["steps"].description,
    )
    ranges: dict[str, tuple[float, float]] = Field(
        default_factory=lambda: {HOLES: (0.1, MAX_HOLE_RATIO), WAITS: (0.25, 0.75)},
        description=TeacherOptions.model_fields["ranges"].description,
    )


class LearningProgressDesigner(RuleDesigner):
    name = "learning-progress"
    description = (
        "Teacher-student bandit: budget to the arms (MAPF: sizes) whose validation score moves "
        "most, a random arm explored each round, stalled arms made harder or easier."
    )
    tasks = None
    options_model: ClassVar[type[BaseModel]] = LearningProgressOptions

    def __init__(self, **options: Any) -> None:
        self.options = LearningProgressOptions(**options)

    def task_problems(self, task: Task[Any, Any]) -> list[str]:
        return self.options.task_problems(self.name, task)

    def changes(self, ctx: DesignContext) -> tuple[Mapping[str, Any], str]:
        task = ctx.design_task()
        if ctx.validation is None or task.rates(ctx.validation).overall.n == 0:
            return {}, "no validation report yet: keep the configuration"
        arms = task_arms(task, ctx.config)
        reports = [arm_rates(task, r.validation) for r in ctx.history]
        reports.append(arm_rates(task, ctx.validation))
        scores = {
            arm.name: [arm_score(task, rates.get(arm.name), self.options) for rates in reports]
            for arm in arms
        }
        progress = {
            name: smoothed_progress(s, self.options.smoothing) for name, s in scores.items()
        }
        signal = absolute_progress(progress)
        explored = explored_arm([arm.name for arm in arms], ctx.seed, ctx.round)
        shares = self.budget(signal, explored)
        measured = [name for name, q in progress.items() if q is not None]
        reasons = [self._budget_reason(signal, measured, explored)]
        values = {arm.share: shares[arm.name] for arm in arms}
        if measured:
            mean = sum(signal[name] for name in measured) / len(measured)
            for arm in arms:
                if arm.name not in measured:
                    continue
                moved, why = self._mix(ctx, arm, scores[arm.name][-1], signal[arm.name], mean)
                values.update(moved)
                if why:
                    reasons.append(f"{arm.name}: {why}")
        return as_draft(values), "; ".join(reasons)

    def budget(self, signal: Mapping[str, float], explored: str) -> dict[str, float]:
        """The arms' shares: Boltzmann over `signal`, the explored share, then the bounds."""
        opts = self.options
        top = max(signal.values())
        heat = {a: math.exp((value - top) / opts.temperature) for a, value in signal.items()}
        total = sum(heat.values())
        weights = {
            a: (1 - opts.explore_share) * h / total + opts.explore_share * (a == explored)
            for a, h in heat.items()
        }
        return bounded_shares(weights, *opts.share_bounds(len(weights)))

    def _mix(
        self, ctx: DesignContext, arm: Arm, score: float | None, progress: float, mean: float
    ) -> tuple[dict[tuple[Any, ...], float], str]:
        """A measured arm's lever changes and why: none unless it has stalled."""
        opts = self.options
        if score is None or progress > opts.stall_share * mean:
            return {}, ""
        harder = score >= opts.mastered_at
        steps = {lever: step_lever(lever, ctx.config, opts, harder=harder) for lever in arm.levers}
        way = "mastered: toward the hard end" if harder else "out of reach: toward the easy end"
        moved = ", ".join(f"{lever.name} {a:g} -> {b:g}" for lever, (a, b) in steps.items())
        change = {lever.cell: after for lever, (before, after) in steps.items() if after != before}
        return change, f"stalled (|Q| {progress:.3f}) at score {score:.2f}, {way} ({moved})"

    def _budget_reason(
        self, signal: Mapping[str, float], measured: Sequence[str], explored: str
    ) -> str:
        opts = self.options
        if not measured:
            head = "no change measured yet: every arm alike, uniform budget"
        else:
            values = ", ".join(f"{name} {signal[name]:.3f}" for name in signal)
            head = f"absolute progress |Q|: {values}; Boltzmann at {opts.temperature:g}"
        low, high = opts.share_bounds(len(signal))
        return (
            f"{head}; {opts.explore_share:g} of the budget explores {explored}; "
            f"ratios within [{low:g}, {high:g}]"
        )


def arm_score(
    task: Task[Any, Any], rates: Rates | None, options: LearningProgressOptions
) -> float | None:
    """An arm's blend of valid and solved rates, or None when it has too few answers."""
    if rates is None or rates.n < options.min_answers:
        return None
    weight = options.valid_weight
    return weight * rates.valid_rate + (1 - weight) * solved_rate(task, rates)


def smoothed_progress(scores: Sequence[float | None], smoothing: float) -> float | None:
    """Q of an arm: the moving average of its score's change between consecutive reports.

    Signed, so noise partly cancels; None when no pair of consecutive reports scores the arm.
    """
    progress: float | None = None
    for old, new in pairwise(scores):
        if old is None or new is None:
            continue
        change = new - old
        progress = change if progress is None else smoothing * change + (1 - smoothing) * progress
    return progress


def absolute_progress(progress: Mapping[str, float | None]) -> dict[str, float]:
    """|Q| per arm; an arm without a measured change gets the mean of the measured ones."""
    measured = [abs(q) for q in progress.values() if q is not None]
    fill = sum(measured) / len(measured) if measured else 0.0
    return {a: fill if q is None else abs(q) for a, q in progress.items()}


def explored_arm(arms: Sequence[T], seed: int, round_index: int) -> T:
    """The arm that gets the exploration share after `round_index` of the run `seed`."""
    rng = random.Random(key_seed("learning-progress", "explore", seed, round_index))
    return rng.choice(arms)
