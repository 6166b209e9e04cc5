"""The curves a round reads from verl's files: losses at their true scale, and valid rates from
rollout dumps that verl 0.9 writes while the curves are being read.

The loss files are built the way each verl line writes them, here with plain Python replicas of
verl's aggregation (`tests.harness.verl.loss_logs`); ``test_verl_loss_scale.py`` runs the same
checks through the installed verl's own functions in the verl CI jobs. The dumps are written the
way verl 0.9.1's writer thread writes them (``open(..., "w")``, a line at a time), in pieces.
"""

from __future__ import annotations

import json
import random
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from harness.backends.verl.batch_plan import plan_round
from harness.backends.verl.curves import ESTIMATED, RoundCurves, logged_loss_scale
from harness.backends.verl.retention import prune_rollouts
from harness.backends.verl.rollout_dumps import read_dump
from harness.backends.verl.settings import VerlSettings, verl_section
from harness.experiment import ExperimentConfig
from mapf_env import EnvConfig, Instance, generate, reference_answer, verify
from tests.harness.verl.cases import MAPF_FEED, PAPER_PRESET
from tests.harness.verl.loss_logs import (
    Replica,
    file_logger_061,
    file_logger_091,
    logged_061,
    logged_091,
    micro_batch_losses,
)

SETTINGS = VerlSettings(
    n_gpus_per_node=2, tensor_parallel=1, train_batch_size=8, ppo_mini_batch_size=4,
    micro_batch_size_per_gpu=2,
)  # fmt: skip
N = 4  # 8 prompts x 4 = 32 samples, 16 per GPU: 2 mini-batches of 8, 4 micro-batches of 2 each
PLAN = plan_round(SETTINGS, N, train_rows=16, epochs=1)
RESPONSES = PLAN.samples_per_step


@pytest.fixture(scope="module")
def instances() -> tuple[Instance, ...]:
    return generate(EnvConfig.uniform(samples=16), seed=2, workers=1).instances


def curves(tmp_path: Path, **kw: Any) -> RoundCurves:
    made = RoundCurves(tmp_path, MAPF_FEED, steps_before=0, running=lambda: 0.125, **kw)
    made.metrics_dir.mkdir(exist_ok=True)
    made.rollout_dir.mkdir(exist_ok=True)
    return made


def trailing(tmp_path: Path, **kw: Any) -> RoundCurves:
    """Curves as the 0.9 line reads them: dumps may come after their metrics line."""
    return curves(tmp_path, responses_per_step=RESPONSES, dumps_trail_metrics=True, **kw)


# --- losses at their true scale -------------------------------------------------------------


def test_the_paper_recipe_logs_its_losses_64_times_too_small_on_the_0_6_line() -> None:
    paper = ExperimentConfig.load(PAPER_PRESET)
    assert isinstance(paper.backend_settings, VerlSettings)
    plan = plan_round(verl_section(paper), paper.grpo.group_size, paper.samples_per_round, 1)
    assert logged_loss_scale("0.6", plan) == plan.grad_accumulation == 64
    assert logged_loss_scale("0.9", plan) == 1.0
    with pytest.raises(ValueError, match=r"use_dynamic_bsz=true: verl 0\.6\.1 then scales"):
        logged_loss_scale("0.6", plan, ("+actor_rollout_ref.actor.use_dynamic_bsz=true",))
    assert logged_loss_scale("0.9", plan, ("actor_rollout_ref.actor.use_dynamic_bsz=true",)) == 1


def test_a_0_6_1_metrics_file_reads_as_the_true_mean_micro_batch_loss(tmp_path: Path) -> None:
    losses = micro_batch_losses(SETTINGS, N, ppo_epochs=2, seed=0)
    true_pg = sum(m.pg for m in losses) / len(losses)
    true_kl = sum(m.kl for m in losses) / len(losses)
    logged = logged_061(losses, SETTINGS, N, Replica())
    assert logged["actor/pg_loss"] == pytest.approx(true_pg / PLAN.grad_accumulation)
    read = curves(tmp_path, loss_scale=logged_loss_scale("0.6", PLAN))
    file_logger_061(read.metrics_file(1), [(1, logged)])
    (step,) = read.poll(1)
    assert step.loss == pytest.approx(true_pg) and step.kl == pytest.approx(true_kl)
    assert step.loss != pytest.approx(logged["actor/pg_loss"])  # the correction did something

    # steps.jsonl holds the corrected values; a later harness process replays them as stored
    (row,) = [json.loads(line) for line in read.record.read_text().splitlines()]
    assert row["loss"] == pytest.approx(true_pg) and row[ESTIMATED] is True  # no dump
    again = RoundCurves(tmp_path, MAPF_FEED, steps_before=0, running=lambda: 0.0, loss_scale=64.0)
    assert [s.loss for s in again.replay()] == [step.loss]


def test_a_0_9_1_metrics_file_is_already_at_the_true_scale(tmp_path: Path) -> None:
    losses = micro_batch_losses(SETTINGS, N, ppo_epochs=1, seed=1)
    logged, true = logged_091(losses, SETTINGS, N, Replica())
    read = curves(tmp_path, loss_scale=logged_loss_scale("0.9", PLAN))
    file_logger_091(read.metrics_file(1), [(1, logged)])
    (step,) = read.poll(1)
    assert (step.loss, step.kl) == pytest.approx((true.pg, true.kl))


def test_a_kl_in_the_reward_is_not_rescaled(tmp_path: Path) -> None:
    read = curves(tmp_path, loss_scale=8.0)
    data = {"actor/pg_loss": 0.25, "actor/reward_kl_penalty": 0.5, "critic/score/mean": 1.0}
    file_logger_061(read.metrics_file(1), [(1, data)])
    (step,) = read.poll(1)
    assert (step.loss, step.kl, step.reward) == (2.0, 0.5, 1.0)


# --- rollout dumps ----------------------------------------------------------------------------


def rows(instances: tuple[Instance, ...], valid: int, total: int = RESPONSES) -> list[str]:
    """`total` dump lines as verl 0.9.1's v1 trainer writes them (no reward keys: the verdict
    is the verifier's), the first `valid` of them valid plans."""
    out = []
    for i in range(total):
        inst = instances[i % len(instances)]
        text = reference_answer(inst) if i < valid else "I give up."
        row = {"input": "...", "output": text, "gts": inst.model_dump_json(), "score": 0.0,
               "step": 1, "uid": f"{i:08x}-0000-4000-8000-000000000000_0_0"}  # fmt: skip
        out.append(json.dumps(row) + "\n")
    return out


def log(read: RoundCurves, attempt: int, step: int, **data: float) -> None:
    with open(read.metrics_file(attempt), "a", encoding="utf-8") as f:
        f.write(json.dumps({"step": step, "data": {"critic/score/mean": 0.5, **data}}) + "\n")


def test_a_dump_written_after_its_log_line_is_read_only_once_whole(
    tmp_path: Path, instances: tuple[Instance, ...]
) -> None:
    read = trailing(tmp_path)
    log(read, 1, 1)
    assert read.poll(1) == []  # no dump yet: held back, recorded as estimated meanwhile
    assert read.estimated_steps() == (0,)
    lines = rows(instances, valid=12)
    dump = read.dumps.path(1)
    dump.write_text("".join(lines[:20]) + lines[20][:30])  # cut inside a line
    assert read.poll(1) == []
    dump.write_text("".join(lines[:-1]))  # whole lines, one response short
    assert read.poll(1) == []
    dump.write_text("".join(lines))
    (step,) = read.poll(1)
    assert step.valid_rate == 12 / RESPONSES and read.estimated_steps() == ()
    assert not dump.exists()  # final (its last line written): deleted
    assert read.poll(1) == []  # reported once
    last = json.loads(read.record.read_text().splitlines()[-1])
    assert last[ESTIMATED] is False and last["valid_rate"] == 12 / RESPONSES


def test_verdicts_are_the_verifiers_when_the_dump_has_no_reward_keys(
    instances: tuple[Instance, ...], tmp_path: Path
) -> None:
    path = tmp_path / "1.jsonl"
    path.write_text("".join(rows(instances, valid=5)))
    dump = read_dump(path, MAPF_FEED, RESPONSES)
    assert dump is not None and dump.complete(RESPONSES)
    assert dump.rate == 5 / RESPONSES
    assert verify(instances[0], reference_answer(instances[0])).valid  # what "valid" means


def test_a_dump_that_never_completes_is_given_up_when_a_later_one_is_whole(
    tmp_path: Path, instances: tuple[Instance, ...]
) -> None:
    read = trailing(tmp_path)
    log(read, 1, 1)
    log(read, 1, 2)
    read.dumps.path(1).write_text("".join(rows(instances, valid=3)[:10]))  # writer died
    assert read.poll(1) == []
    read.dumps.path(2).write_text("".join(rows(instances, valid=8)))
    first, second = read.poll(1)  # one writer, in order: dump 1 can no longer grow
    assert (first.valid_rate, second.valid_rate) == (0.125, 8 / RESPONSES)
    assert read.estimated_steps() == (0,)  # the running rate, marked
    assert read.dumps.path(1).exists()  # left for the round's retention
    assert prune_rollouts(read.rollout_dir).freed_files == 1


def test_padding_rows_are_not_counted_and_their_dump_is_left_for_retention(
    tmp_path: Path, instances: tuple[Instance, ...]
) -> None:
    read = trailing(tmp_path)
    log(read, 1, 1)
    pad = json.dumps({"output": "", "gts": instances[0].model_dump_json(), "uid": "pad1f_0_0"})
    read.dumps.path(1).write_text("".join(rows(instances, valid=RESPONSES)) + pad + "\n")
    (step,) = read.poll(1)
    assert step.valid_rate == 1.0
    assert read.dumps.path(1).exists()  # more padding could still be coming: not deleted


def test_an_attempt_that_ended_settles_its_held_steps(
    tmp_path: Path, instances: tuple[Instance, ...]
) -> None:
    read = trailing(tmp_path)
    log(read, 1, 1)
    read.dumps.path(1).write_text("".join(rows(instances, valid=2)[:5]))
    assert read.poll(1) == []  # the trainer crashed here
    (step,) = read.poll(2)
    assert step.valid_rate == 0.125 and read.estimated_steps() == (0,)


def test_a_left_over_dump_is_never_read_for_a_later_attempts_step(
    tmp_path: Path, instances: tuple[Instance, ...]
) -> None:
    read = trailing(tmp_path)
    read.dumps.path(2).write_text("".join(rows(instances, valid=RESPONSES)))  # attempt 1's
    read.poll(1)  # attempt 1 crashed after dumping step 2, before logging it
    log(read, 2, 2)
    assert read.poll(2) == []  # the old dump of step 2 is not this attempt's
    read.dumps.path(2).write_text("".join(rows(instances, valid=4)))  # rewritten
    (step,) = read.poll(2)
    assert step.valid_rate == 4 / RESPONSES


def test_a_later_harness_process_settles_an_estimated_step_from_its_dump(
    tmp_path: Path, instances: tuple[Instance, ...]
) -> None:
    read = trailing(tmp_path)
    log(read, 1, 1)
    assert read.poll(1) == []  # the harness stops here; verl goes on to write the dump
    read.dumps.path(1).write_text("".join(rows(instances, valid=6)))
    again = trailing(tmp_path)
    assert [s.valid_rate for s in again.replay()] == [6 / RESPONSES]
    assert again.estimated_steps() == () and not again.dumps.path(1).exists()


def test_the_0_6_line_reads_the_dump_with_its_line_and_marks_a_short_one(
    tmp_path: Path, instances: tuple[Instance, ...]
) -> None:
    read = curves(tmp_path, responses_per_step=RESPONSES)
    read.dumps.path(1).write_text("".join(rows(instances, valid=RESPONSES)[:7]))
    log(read, 1, 1)
    (step,) = read.poll(1)
    assert step.valid_rate == 0.125 and read.estimated_steps() == (0,)


def test_a_writer_thread_racing_the_reader_never_yields_a_partial_dump(
    tmp_path: Path, instances: tuple[Instance, ...]
) -> None:
    """verl 0.9.1's writer: one thread, dumps in order, ``open("w")`` and a line per write,
    the metrics line logged as soon as the dump is handed over; the reader polls throughout."""
    read = trailing(tmp_path)
    rng = random.Random(0)
    valid = {step: rng.randrange(RESPONSES + 1) for step in range(1, 9)}

    def write(step: int) -> None:
        with open(read.dumps.path(step), "w", encoding="utf-8") as f:
            for line in rows(instances, valid[step]):
                f.write(line)
                f.flush()

    stop, seen = threading.Event(), []

    def reader() -> None:
        while not stop.wait(0.001):
            seen.extend(read.poll(1))

    thread = threading.Thread(target=reader)
    thread.start()
    with ThreadPoolExecutor(max_workers=1) as writer:
        for step in valid:
            writer.submit(write, step)
            log(read, 1, step)
    stop.set()
    thread.join()
    seen.extend(read.poll(1))  # the trainer exited: the last poll
    assert [s.valid_rate for s in seen] == [valid[s] / RESPONSES for s in valid]
    assert read.estimated_steps() == () and not list(read.rollout_dir.iterdir())
