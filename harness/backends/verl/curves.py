"""A round's training curves from what verl writes: its ``file`` logger and its rollout dumps.

The file logger (``verl/utils/tracking.py``, ``FileLogger``) writes one JSON line per step,
``{"step": N, "data": {metric: value}}``, to ``$VERL_FILE_LOGGER_PATH``, opened with mode "w",
so every attempt at a round gets a file of its own (``metrics/attempt-K.jsonl``). 0.6.1 writes
through a buffered text file (lines appear in blocks, all of them when verl exits); 0.9.1
writes each line unbuffered with orjson (a NaN becomes ``null``, read as a missing value).
Only whole lines are read. The metric names are the same on both lines:

* reward: ``critic/score/mean`` (``trainer/ppo/metric_utils.py``, ``compute_data_metrics``);
* kl: ``actor/kl_loss`` when the KL is in the loss; ``actor/reward_kl_penalty`` when it is in
  the reward (``algorithm.use_kl_in_reward``); 0.0 when there is no KL (verl logs neither);
* loss: ``actor/pg_loss``; epoch: ``training/epoch``; seconds: ``timing_s/step``;
* valid_rate: verl logs no per-step mean of the reward's extra keys during training, so it
  comes from the step's rollout dump (`rollout_dumps`).

The loss scale (`logged_loss_scale`)
------------------------------------
verl 0.6.1 logs ``actor/pg_loss`` and ``actor/kl_loss`` scaled down by the gradient
accumulation. ``DataParallelPPOActor.update_policy`` (``verl/workers/actor/dp_actor.py``)
sets ``gradient_accumulation = ppo_mini_batch_size // ppo_micro_batch_size_per_gpu`` (the
mini-batch per GPU in samples: ``fsdp_workers.py`` multiplies it by n and divides by the data
parallel size) and ``loss_scale_factor = 1 / gradient_accumulation``, and stores
``pg_loss.item() * loss_scale_factor`` (and the same of ``kl_loss``) for every micro-batch of
every mini-batch and PPO epoch (``append_to_dict``). ``update_actor`` (``fsdp_workers.py``)
returns those lists per rank, ``DataProto.concat`` (``verl/protocol.py``) gathers the ranks'
lists, and ``RayPPOTrainer.fit`` takes ``reduce_metrics`` (``verl/utils/metric/utils.py``):
``np.mean`` over all of them. The factor is one constant, so the logged value is the mean
micro-batch loss divided by the gradient accumulation -- 1/64 of it in the paper's recipe --
and multiplying by `BatchPlan.grad_accumulation` gives it back exactly. (With
``use_dynamic_bsz`` the factor would differ per micro-batch and could not be undone; the
harness never sets it, and `logged_loss_scale` refuses it in ``extra_overrides``.)
``actor/reward_kl_penalty`` (``apply_kl_penalty``) is not scaled.

verl 0.9.1 logs the true value: ``ppo_loss`` (``verl/workers/utils/losses.py``) normalises each
micro-batch by the whole mini-batch (``agg_loss`` with ``dp_size``, ``batch_num_tokens``,
``global_batch_size``) and marks ``pg_loss``/``kl_loss`` for summing;
``TrainingWorker.train_mini_batch`` (``verl/workers/engine_workers.py``) sums over
micro-batches and averages over ranks (``Metric.aggregate_dp``), the trainer prefixes
``actor/`` and averages over mini-batches. So the scale there is 1. Steps are stored in
``steps.jsonl`` already corrected; a resumed round replays them as stored.

The valid rate and its dump
---------------------------
On the 0.6 line the dump is written before the metrics line, so it is read when the line
appears. On the 0.9 line (``dumps_trail_metrics``) a step whose dump is not complete yet is held
back until it is, and given up (below) when it cannot become so any more: a later step's dump of
the same attempt is complete (one writer, in order, so this step's writer is done), or the
attempt that wrote it has ended. A dump is deleted once read if it is final (its writer is done;
`rollout_dumps`) and ``keep_rollouts`` is off; what is left is removed with the round's
training state (`retention`), after the trainer has exited.

Where no usable dump exists the step takes the running valid rate, and the step is *marked*:
`RoundCurves.estimated_steps` names it and its line in ``steps.jsonl`` carries
``"valid_rate_estimated": true``, so no substituted value passes for a measured one.

Each step is also written to ``steps.jsonl`` in the round's directory (the dumps are gone once
read) -- a held step too, as estimated, and again when it is settled; the last line of a step
wins -- so a round resumed by a later harness process keeps the curves of the steps before.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.backends.verl.rollout_dumps import Dump, DumpFiles
from harness.backends.verl.task_feed import TaskFeed
from run_records import TrainStep

if TYPE_CHECKING:
    from harness.backends.verl.batch_plan import BatchPlan
    from harness.backends.verl.versions import VerlLine

__all__ = ["ESTIMATED", "RoundCurves", "complete_lines", "logged_loss_scale"]

REWARD = "critic/score/mean"
KL = "actor/kl_loss"
REWARD_KL = "actor/reward_kl_penalty"
LOSS = "actor/pg_loss"
EPOCH = "training/epoch"
SECONDS = "timing_s/step"
ESTIMATED = "valid_rate_estimated"
"""The key a ``steps.jsonl`` line carries when its valid rate is the running rate."""
DYNAMIC_BSZ = "actor_rollout_ref.actor.use_dynamic_bsz"


def logged_loss_scale(
    line: VerlLine, plan: BatchPlan, extra_overrides: Sequence[str] = ()
) -> float:
    """What verl's logged ``actor/pg_loss`` and ``actor/kl_loss`` must be multiplied by to read
    at their true scale (see the module docstring); ValueError where they cannot be."""
    if line != "0.6":
        return 1.0
    for override in extra_overrides:
        key, _, value = override.lstrip("+~").partition("=")
        if key.strip() == DYNAMIC_BSZ and value.strip().lower() == "true":
            raise ValueError(
                f"verl.extra_overrides sets {DYNAMIC_BSZ}=true: verl 0.6.1 then scales each "
                "micro-batch's logged loss by its share of the mini-batch, which the curves "
                "cannot undo; remove the override, or train with verl 0.9"
            )
    return float(plan.grad_accumulation)


def complete_lines(path: Path, offset: int) -> tuple[list[str], int]:
    """The whole lines of `path` after byte `offset`, and the offset after the last of them."""
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            data = f.read()
    except FileNotFoundError:
        return [], offset
    end = data.rfind(b"\n") + 1
    lines = data[:end].decode("utf-8", errors="replace").splitlines()
    return [line for line in lines if line.strip()], offset + end


def _whole(dump: Dump | None, expected: int | None) -> bool:
    return dump is not None and dump.complete(expected)


def _number(data: dict[str, Any], key: str, default: float) -> float:
    value = data.get(key, default)
    number = float(value) if isinstance(value, int | float) else default
    return number if math.isfinite(number) else default


class RoundCurves:
    """The steps of one round, gathered as verl writes them (see the module docstring).

    `feed` judges a dumped response where verl's dump does not carry the reward's verdict.

    `loss_scale` is `logged_loss_scale`'s factor; `responses_per_step` (prompts per step x n)
    tells a complete dump from one still being written; `dumps_trail_metrics` says that dumps
    may come after their step's metrics line (verl 0.9).
    """

    def __init__(
        self,
        round_dir: Path,
        feed: TaskFeed,
        *,
        steps_before: int,
        running: Callable[[], float],
        keep_rollouts: bool = False,
        loss_scale: float = 1.0,
        responses_per_step: int | None = None,
        dumps_trail_metrics: bool = False,
    ) -> None:
        self.round_dir = round_dir
        self.steps_before = steps_before
        self.running = running
        self.keep_rollouts = keep_rollouts
        self.loss_scale = loss_scale
        self.expected = responses_per_step
        self.trailing = dumps_trail_metrics
        self.steps: dict[int, TrainStep] = {}
        self.reported: set[int] = set()
        self.estimated: set[int] = set()
        self._held: dict[int, TrainStep] = {}  # verl step -> its step, valid rate provisional
        self._offsets: dict[Path, int] = {}
        self._attempt: int | None = None
        self._done = 0  # the latest verl step whose dump was complete in this attempt
        self.dumps = DumpFiles(self.rollout_dir, feed)
        self._load_record()

    @property
    def metrics_dir(self) -> Path:
        return self.round_dir / "metrics"

    @property
    def rollout_dir(self) -> Path:
        return self.round_dir / "rollouts"

    @property
    def record(self) -> Path:
        return self.round_dir / "steps.jsonl"

    def metrics_file(self, attempt: int) -> Path:
        return self.metrics_dir / f"attempt-{attempt}.jsonl"

    def attempts_so_far(self) -> int:
        """How many attempts at this round have logged (their files exist)."""
        return len(list(self.metrics_dir.glob("attempt-*.jsonl")))

    def estimated_steps(self) -> tuple[int, ...]:
        """The steps whose valid rate is the running rate, not their own dump's."""
        return tuple(sorted(self.estimated))

    def _load_record(self) -> None:
        """The steps an earlier harness process recorded; an estimated one takes its dump
        if that is complete now (no trainer of this round runs while curves are made), and
        every dump present is then a left-over, never read for a later attempt's step."""
        for line in complete_lines(self.record, 0)[0]:
            step = TrainStep.model_validate_json(line)
            self.steps[step.step] = step
            if json.loads(line).get(ESTIMATED):
                self.estimated.add(step.step)
            else:
                self.estimated.discard(step.step)
        for number in sorted(self.estimated):
            verl_step = number - self.steps_before + 1
            dump = self.dumps.read(verl_step, self.expected)
            if dump is not None and dump.complete(self.expected):
                self._store(verl_step, self.steps[number], dump.rate)
                if not self.keep_rollouts:
                    self.dumps.delete(verl_step)
        self.dumps.snapshot()
        self.dumps.retire()

    def poll(self, attempt: int) -> list[TrainStep]:
        """Steps settled since the last poll by `attempt`; each step number is returned once
        (a step redone after a resume replaces the stored one but is not reported again)."""
        if attempt != self._attempt:
            new = self._end_attempt()
            self._attempt, self._done = attempt, 0
        else:
            new = []
        path = self.metrics_file(attempt)
        lines, self._offsets[path] = complete_lines(path, self._offsets.get(path, 0))
        fresh = []
        for line in lines:
            entry = json.loads(line)
            verl_step = int(entry["step"])
            step = self._step(verl_step, entry.get("data", {}))
            self._held[verl_step] = self.steps[step.step] = step
            fresh.append(verl_step)
        new += self._settle()
        for verl_step in fresh:  # held on: recorded as estimated until settled
            if verl_step in self._held:
                self._write(self._held[verl_step], estimated=True)
        self.dumps.snapshot()
        return sorted(new, key=lambda s: s.step)

    def _end_attempt(self) -> list[TrainStep]:
        """The previous attempt has exited: its held steps take their dumps as they are, unless
        the new attempt already rewrites one (it redoes that step and logs it again)."""
        new = []
        for verl_step, step in sorted(self._held.items()):
            if not self.dumps.unchanged(verl_step):
                continue
            dump = self.dumps.read(verl_step, self.expected)
            complete = dump is not None and dump.complete(self.expected)
            new += self._settle_one(verl_step, step, dump.rate if dump and complete else None)
        self.dumps.retire()
        return new

    def _settle(self) -> list[TrainStep]:
        """Held steps whose dump is complete, or can no longer become so."""
        dumps = {n: self.dumps.read(n, self.expected) for n in self._held}
        for n, dump in dumps.items():
            if dump is not None and dump.complete(self.expected):
                self._done = max(self._done, n)
        new = []
        for verl_step, step in sorted(self._held.items()):
            dump = dumps[verl_step]
            if self.trailing and verl_step < self._done and not _whole(dump, self.expected):
                # read before a later dump was seen complete: one writer, in order, so this
                # one's writer has finished since -- read it again rather than give it up
                dump = self.dumps.read(verl_step, self.expected)
            if dump is not None and dump.complete(self.expected):
                new += self._settle_one(verl_step, step, dump.rate)
                if dump.final(self.expected) and not self.keep_rollouts:
                    self.dumps.delete(verl_step)
            elif not self.trailing or verl_step < self._done:
                new += self._settle_one(verl_step, step, None)
        return new

    def _settle_one(self, verl_step: int, step: TrainStep, rate: float | None) -> list[TrainStep]:
        """Store a held step with its dump's rate (None: the running rate, marked)."""
        del self._held[verl_step]
        stored = self._store(verl_step, step, rate)
        if stored.step in self.reported:
            return []
        self.reported.add(stored.step)
        return [stored]

    def _store(self, verl_step: int, step: TrainStep, rate: float | None) -> TrainStep:
        if rate is not None:
            step = step.model_copy(update={"valid_rate": rate})
        self.steps[step.step] = step
        self._write(step, estimated=rate is None)
        return step

    def _write(self, step: TrainStep, *, estimated: bool) -> None:
        if estimated:
            self.estimated.add(step.step)
        else:
            self.estimated.discard(step.step)
        row = {**step.model_dump(mode="json"), ESTIMATED: estimated}
        with open(self.record, "a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")

    def _step(self, verl_step: int, data: dict[str, Any]) -> TrainStep:
        """The step of a metrics line, its losses at their true scale, its valid rate the
        running one until its dump is read."""
        kl = _number(data, KL, math.nan)
        kl = _number(data, REWARD_KL, 0.0) if math.isnan(kl) else kl * self.loss_scale
        return TrainStep(
            step=self.steps_before + verl_step - 1,
            epoch=int(_number(data, EPOCH, 0.0)),
            reward=_number(data, REWARD, 0.0),
            valid_rate=self.running(),
            kl=kl,
            loss=_number(data, LOSS, 0.0) * self.loss_scale,
            seconds=_number(data, SECONDS, 0.0),
        )

    def replay(self) -> list[TrainStep]:
        """The steps an earlier harness process recorded, marked as reported (a resumed round
        shows its whole curve)."""
        earlier = list(self.ordered())
        self.reported.update(step.step for step in earlier)
        return earlier

    def ordered(self) -> tuple[TrainStep, ...]:
        """Every step so far in order; one still held has the running valid rate (and is
        among `estimated_steps`)."""
        return tuple(self.steps[k] for k in sorted(self.steps))
