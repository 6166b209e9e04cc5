"""The harness's share of a `trl` round: the round loop's work against TRL's GRPOTrainer run bare.

Target: the harness adds at most 10% to a round on the CPU with the tiny model
(SmolLM2-135M-Instruct), i.e. harness / bare <= 1.10 in wall time. Both sides run in this one
process, on the same model directory, the same prompts and the same number of threads, and the
figure printed is their ratio, so it holds across machines even when the seconds do not.

What is compared, part by part (the same names head the table):

* data -- harness: `mapf_env.generate` of the round's configuration (`harness.loop.shared_start`,
  the loop's data seed), which generates and solves the instances. Bare: nothing; it is handed
  the prompts of those instances (generated once before any clock starts).
* training -- harness: building `TrlBackend` and its ``train_round`` (the model loaded from the
  directory, prompts checked against ``max_prompt_length``, `RoundReward` verifying every answer
  against its optimum, the step curves, the round's summary), less the checkpoint below. Bare:
  the same model loaded with transformers, a `GRPOTrainer` built with the very `GRPOConfig`
  arguments (and PEFT config) `harness.backends.trl.trainer.grpo_trainer` gives it -- captured
  by calling that function with stand-ins, so the two cannot drift apart -- the same prompts
  (`render_prompt`, no other column), a reward function that returns one 0.0 per answer, and
  ``train()``. Both draw with the same seed; TRL builds its reference model alike in both.
* checkpoint -- harness: the round's model directory (model and tokenizer written to a staging
  directory and renamed into place, TRL's scratch removed, the directory's sha256, whose share
  the table's note gives) and ``save`` (``trl_state.json``). Bare: ``trainer.save_model`` (model,
  tokenizer and TRL's arguments): a round that keeps nothing is no round, so saving the model is
  model work both sides need; only what the harness does beyond it counts against it.
* scoring -- harness: `harness.evaluate.validation_report` on the experiment's validation subset
  (``--validation`` instances, stratified as the loop takes them): ``respond`` loads the saved
  model afresh (the backend drops the trained one), generates greedy answers in batches, and
  every answer is verified. Bare: greedy ``model.generate`` of the same prompts with the same
  settings (batch size, left padding, answer bound) on the model still in memory. Answering is
  model work both sides need; the reload and the verdicts are the harness's.
* serving (``--serve`` only) -- harness: ``endpoint("policy")`` starts ``transformers serve`` on
  the round's model and ``release`` stops it, as a `self` designer's step would. Bare: nothing.

Model loads sit inside the parts: the harness loads the model twice (training; scoring, from
the saved directory), the bare run once; the table's notes give the harness's load seconds
from its own ledger. The loop's bookkeeping around a round (round.json, curves file) is not
timed: it writes a few kilobytes.

The machine this runs on is shared and noisy: the order alternates in pairs (bare, harness;
harness, bare; ...) over ``--repeats`` (default 2), so whatever warms up or drifts falls on
both sides alike, and the figures are medians over repeats. Torch computes on one thread by
default (``--threads``): on 2 cores that other jobs load, two threads wait on each other and the
same greedy answers took anywhere from 5 to 25 s, where one thread took 3.5-3.9 s. One thread
is the conservative setting for the target, not the flattering one: the model's work shrinks
with more threads while the harness's own work (files, checksum, verdicts) does not, so on an
idle machine ``--threads 2`` gives the share for all cores, a little higher. Beside wall
seconds the process's CPU seconds are given (all its threads, and a server's while it ran),
and the verdict is given for both: CPU seconds show whether the work itself changed when wall
seconds swing. Mean answer tokens per optimiser step are printed for both sides: the two runs
generate alike only while they are close (a bare reward of zeros moves the weights otherwise
than the testbed's, so later steps' answers can end at other lengths; the tiny model runs
nearly every answer to the bound).

Run alone: ``python benchmarks/bench_trl_overhead.py`` (defaults: two optimiser steps of 2
prompts, 4 instances, n = 2, answers of at most 16 tokens, 2 validation instances, one thread,
2 repeats: about 3 minutes a repeat on this 2-core machine, most of it the steps' forward and
backward passes over prompts of about 500 tokens). A bigger round (``--rounds-instances``,
``--group-size``) spreads the harness's fixed costs over more model work and lowers its share.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import wraps
from importlib.metadata import version
from pathlib import Path
from typing import Any
from unittest import mock

import torch
from bench_console import bench_console
from rich.table import Table

from envdesign_common import RunningValidRate
from harness.backends.trl import backend as trl_backend_module
from harness.backends.trl.backend import TrlBackend
from harness.backends.trl.loading import LoadedModel, Placement, placement
from harness.backends.trl.model_files import smollm2_model
from harness.backends.trl.reward import RoundReward
from harness.backends.trl.settings import TrlSettings
from harness.backends.trl.trainer import chat_kwargs, grpo_trainer
from harness.evaluate import experiment_suite, validation_report
from harness.experiment import ExperimentConfig
from harness.loop import round_seed, shared_start
from mapf_env import Instance, generate, render_prompt
from run_records import unpin_cpu_kernels
from run_records.machine import cpu_model, mkl_branch

TARGET_OVERHEAD = 0.10
"""The harness may add at most this share to a bare round (CPU, tiny model)."""

PARTS = ("data", "training", "checkpoint", "scoring", "serving")
PROMPTS_PER_STEP = 2
SEED = 0


def cpu_seconds() -> float:
    """CPU seconds of this process (all threads) and of its finished children (a server)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@dataclass
class Timing:
    """Wall and CPU seconds per part of one side's round, and what it noted on the way."""

    wall: dict[str, float] = field(default_factory=dict)
    cpu: dict[str, float] = field(default_factory=dict)
    notes: dict[str, float] = field(default_factory=dict)
    answer_tokens: float = float("nan")

    @contextmanager
    def part(self, name: str) -> Iterator[None]:
        started, cpu = time.perf_counter(), cpu_seconds()
        try:
            yield
        finally:
            self.wall[name] = self.wall.get(name, 0.0) + time.perf_counter() - started
            self.cpu[name] = self.cpu.get(name, 0.0) + cpu_seconds() - cpu

    def move(self, seconds: tuple[float, float], source: str, target: str) -> None:
        """Count (wall, cpu) `seconds` measured inside `source` as `target`'s."""
        for book, value in zip((self.wall, self.cpu), seconds, strict=True):
            book[source] -= value
            book[target] = book.get(target, 0.0) + value

    @property
    def total(self) -> float:
        return sum(self.wall.values())

    @property
    def total_cpu(self) -> float:
        return sum(self.cpu.values())


def timed_calls(fn: Callable[..., Any], into: list[tuple[float, float]]) -> Callable[..., Any]:
    """`fn`, appending each call's (wall, cpu) seconds to `into`; what it does is unchanged."""

    @wraps(fn)
    def timed(*args: Any, **kwargs: Any) -> Any:
        started, cpu = time.perf_counter(), cpu_seconds()
        try:
            return fn(*args, **kwargs)
        finally:
            into.append((time.perf_counter() - started, cpu_seconds() - cpu))

    return timed


def summed(calls: Sequence[tuple[float, float]]) -> tuple[float, float]:
    return sum(w for w, _ in calls), sum(c for _, c in calls)


# --- the experiment --------------------------------------------------------------------------


def experiment(policy: Path, args: argparse.Namespace) -> ExperimentConfig:
    """One round of `args.rounds_instances` instances on the CPU, as the trl tests' toy
    budget has it: one micro-batch per optimiser step of `PROMPTS_PER_STEP` prompts."""
    return ExperimentConfig.from_mapping(
        {
            "name": "trl-overhead",
            "backend": "trl",
            "policy": str(policy),
            "rounds": 1,
            "samples_per_round": args.rounds_instances,
            "epochs_per_round": 1,
            "grpo": {"group_size": args.group_size, "learning_rate": 1.0e-5, "kl_coef": 1.0e-3},
            "seeds": [SEED],
            "limit": args.validation,
            "trl": {
                "device": "cpu",
                "max_response_length": args.answer_tokens,
                "prompts_per_step": PROMPTS_PER_STEP,
                "micro_batch_size": PROMPTS_PER_STEP * args.group_size,
                "eval_batch_size": 8,
            },
        }
    )


def harness_trainer_arguments(
    experiment: ExperimentConfig, instances: Sequence[Instance], place: Placement, seed: int
) -> tuple[dict[str, Any], Any]:
    """The keywords `grpo_trainer` gives `GRPOConfig` and its PEFT config (None without LoRA),
    read by calling it with stand-ins for TRL's two classes: the bare run's arguments are the
    harness's by construction. ``output_dir`` is each run's own."""
    import trl.trainer.grpo_config as config_module
    import trl.trainer.grpo_trainer as trainer_module

    def keywords(**kwargs: Any) -> dict[str, Any]:
        return kwargs

    class Trainer(dict[str, Any]):
        """GRPOTrainer's keywords, and the one method `grpo_trainer` calls on it."""

        def remove_callback(self, callback: Any) -> None:
            pass

    stand_in = LoadedModel(source="", model=None, tokenizer=None)
    reward = RoundReward(experiment.task_object, instances, RunningValidRate())
    unused: Any = None  # the curves: only handed on to GRPOTrainer
    with (
        mock.patch.object(config_module, "GRPOConfig", keywords),
        mock.patch.object(trainer_module, "GRPOTrainer", Trainer),
    ):
        built = grpo_trainer(
            stand_in,
            reward,
            unused,
            experiment.settings_of(TrlSettings),
            experiment.grpo,
            place=place,
            epochs=experiment.epochs_per_round,
            seed=seed,
            output_dir=Path("unused"),
        )
    arguments = dict(built["args"])
    del arguments["output_dir"]
    return arguments, built["peft_config"]


# --- the bare run ----------------------------------------------------------------------------


def zero_reward(completions: Sequence[Any], **_: Any) -> list[float | None]:
    """The bare run's reward: one float per answer, no verification."""
    return [0.0] * len(completions)


def mean_answer_tokens(log_history: Sequence[dict[str, Any]]) -> float:
    lengths = [
        log["completions/mean_length"] for log in log_history if "completions/mean_length" in log
    ]
    return statistics.fmean(lengths) if lengths else float("nan")


def bare_answers(
    model: Any, tokenizer: Any, instances: Sequence[Instance], settings: TrlSettings
) -> list[str]:
    """Greedy answers with plain transformers, batched and bounded as the backend answers."""
    texts = [
        tokenizer.apply_chat_template(
            render_prompt(inst), add_generation_prompt=True, tokenize=False, **chat_kwargs(settings)
        )
        for inst in instances
    ]
    tokenizer.padding_side = "left"
    model.eval()
    answers: list[str] = []
    with torch.inference_mode():
        for start in range(0, len(texts), settings.eval_batch_size):
            batch = tokenizer(
                texts[start : start + settings.eval_batch_size],
                return_tensors="pt",
                padding=True,
                add_special_tokens=False,
            )
            out = model.generate(
                **batch,
                max_new_tokens=settings.max_response_length,
                do_sample=False,
                use_cache=True,
                pad_token_id=tokenizer.pad_token_id,
            )
            answers += tokenizer.batch_decode(
                out[:, batch["input_ids"].shape[1] :], skip_special_tokens=True
            )
    return answers


def bare_round(
    experiment: ExperimentConfig,
    arguments: dict[str, Any],
    peft_config: Any,
    instances: Sequence[Instance],
    validation: Sequence[Instance],
    workdir: Path,
) -> Timing:
    """TRL's GRPOTrainer on the round's prompts, its model saved, the validation answered."""
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.trainer_callback import PrinterCallback
    from trl.trainer.grpo_config import GRPOConfig
    from trl.trainer.grpo_trainer import GRPOTrainer

    timing = Timing()
    settings = experiment.settings_of(TrlSettings)
    with timing.part("training"):
        model = AutoModelForCausalLM.from_pretrained(experiment.policy, dtype=torch.float32)
        tokenizer = AutoTokenizer.from_pretrained(experiment.policy)
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        trainer = GRPOTrainer(
            model=model,
            reward_funcs=zero_reward,
            args=GRPOConfig(output_dir=str(workdir / "trainer"), **arguments),
            train_dataset=Dataset.from_list([{"prompt": render_prompt(i)} for i in instances]),
            processing_class=tokenizer,
            peft_config=peft_config,
        )
        trainer.remove_callback(PrinterCallback)  # as the harness's trainer does
        trainer.train()
    timing.answer_tokens = mean_answer_tokens(trainer.state.log_history)
    with timing.part("checkpoint"):
        trainer.save_model(str(workdir / "model"))
    with timing.part("scoring"):
        bare_answers(trainer.model, tokenizer, validation, settings)
    return timing


def warm_up(experiment: ExperimentConfig, instances: Sequence[Instance]) -> None:
    """Untimed: the model's files read once, one forward and backward pass and a short greedy
    answer, so that neither side pays the process's first loads and kernel choices alone."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model: Any = AutoModelForCausalLM.from_pretrained(experiment.policy, dtype=torch.float32)
    tokenizer: Any = AutoTokenizer.from_pretrained(experiment.policy)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    ids = tokenizer.apply_chat_template(
        render_prompt(instances[0]),
        add_generation_prompt=True,
        return_tensors="pt",
        return_dict=True,
    )["input_ids"]
    model(input_ids=ids, labels=ids).loss.backward()
    bare_answers(model, tokenizer, instances[:1], TrlSettings(max_response_length=2))


# --- the harness round -----------------------------------------------------------------------


def harness_round(
    experiment: ExperimentConfig,
    validation: Sequence[Instance],
    workdir: Path,
    *,
    threads: int | None,
    serve: bool,
) -> Timing:
    """What `harness.loop.run_designer` does for one round with the trl backend (no design)."""
    timing = Timing()
    finishing: list[tuple[float, float]] = []
    checksums: list[tuple[float, float]] = []
    rewards: list[tuple[float, float]] = []
    with timing.part("training"):
        backend = TrlBackend(experiment, workdir, threads=threads)
    with timing.part("data"):
        data = generate(shared_start(experiment, SEED), round_seed(SEED, 0, "data"))
    steps: list[Any] = []
    finish = timed_calls(backend._finish_round, finishing)
    sha256 = timed_calls(trl_backend_module.directory_sha256, checksums)
    scored = timed_calls(RoundReward.__call__, rewards)
    with (
        timing.part("training"),
        mock.patch.object(backend, "_finish_round", finish),
        mock.patch.object(trl_backend_module, "directory_sha256", sha256),
        mock.patch.object(RoundReward, "__call__", scored),
    ):
        backend.train_round(
            data.instances,
            epochs=experiment.epochs_per_round,
            seed=round_seed(SEED, 0, "train"),
            on_step=steps.append,
        )
    timing.move(summed(finishing), "training", "checkpoint")
    timing.notes["checksum"] = summed(checksums)[0]
    timing.notes["reward"] = summed(rewards)[0]
    tokens = [s.answer_tokens for s in steps if s.answer_tokens is not None]
    timing.answer_tokens = statistics.fmean(tokens) if tokens else float("nan")
    with timing.part("checkpoint"):
        backend.save(workdir / "round-000" / "checkpoint")
    task = experiment.task_object
    items = experiment_suite(task, experiment.validation, experiment.limit).items
    with timing.part("scoring"):
        validation_report(task, backend, items, round_seed(SEED, 0, "eval"))
    if serve:
        with timing.part("serving"):
            backend.endpoint("policy")
            backend.release()
    loads = backend.take_overhead().loads
    for kind in ("training", "evaluation", "serving-policy"):
        timing.notes[f"load {kind}"] = sum(load.seconds for load in loads if load.kind == kind)
    return timing


# --- the report ------------------------------------------------------------------------------


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else 0.0


def part_median(timings: Sequence[Timing], part: str, cpu: bool = False) -> float | None:
    values = [(t.cpu if cpu else t.wall).get(part) for t in timings]
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def report(
    bare: Sequence[Timing], harness: Sequence[Timing], args: argparse.Namespace, load: float
) -> None:
    console = bench_console()
    what = {
        "data": "generate + solve the round's instances",
        "training": "load "
        f"({median([t.notes['load training'] for t in harness]):.1f}s), prompt checks, "
        "GRPOTrainer with the testbed's reward (its calls "
        f"{median([t.notes['reward'] for t in harness]):.2f}s) and curves",
        "checkpoint": "model + tokenizer staged and renamed, checksum "
        f"({median([t.notes['checksum'] for t in harness]):.1f}s), trl_state.json",
        "scoring": "reload the saved model "
        f"({median([t.notes['load evaluation'] for t in harness]):.1f}s), greedy answers, "
        "verdicts",
        "serving": "transformers serve of the round's model, started and stopped (load "
        f"{median([t.notes.get('load serving-policy', 0.0) for t in harness]):.1f}s)",
    }
    table = Table(title=f"A trl round, harness vs bare GRPOTrainer (medians of {args.repeats})")
    for col in (
        "part",
        "bare s",
        "harness s",
        "harness - bare s",
        "bare cpu s",
        "harness cpu s",
        "what the harness does",
    ):
        table.add_column(
            col, justify="left" if col in ("part", "what the harness does") else "right"
        )
    for part in PARTS:
        if part == "serving" and not args.serve:
            continue
        b, h = part_median(bare, part), part_median(harness, part)
        extra = (h or 0.0) - (b or 0.0)
        table.add_row(
            part,
            seconds(b),
            seconds(h),
            f"{extra:+.1f}",
            seconds(part_median(bare, part, cpu=True)),
            seconds(part_median(harness, part, cpu=True)),
            what[part],
        )
    b_total, h_total = median([t.total for t in bare]), median([t.total for t in harness])
    b_cpu, h_cpu = median([t.total_cpu for t in bare]), median([t.total_cpu for t in harness])
    table.add_row(
        "total",
        f"{b_total:.1f}",
        f"{h_total:.1f}",
        f"{h_total - b_total:+.1f}",
        f"{b_cpu:.1f}",
        f"{h_cpu:.1f}",
        "",
    )
    console.print(table)
    for i, (one_bare, one_harness) in enumerate(zip(bare, harness, strict=True), start=1):
        console.print(
            f"repeat {i}: bare {one_bare.total:.1f}s, harness {one_harness.total:.1f}s, "
            f"harness / bare {one_harness.total / one_bare.total:.3f}"
        )
    console.print(
        f"mean answer tokens per step: bare {median([t.answer_tokens for t in bare]):.1f}, "
        f"harness {median([t.answer_tokens for t in harness]):.1f} (bound {args.answer_tokens})"
    )
    ratio, cpu_ratio = h_total / b_total, h_cpu / b_cpu
    verdict = ", ".join(
        f"{name} {'met' if value - 1 <= TARGET_OVERHEAD else 'MISSED'}"
        for name, value in (("wall", ratio), ("cpu", cpu_ratio))
    )
    console.print(
        f"harness / bare: {ratio:.3f} wall ({cpu_ratio:.3f} cpu): the harness adds "
        f"{ratio - 1:+.1%} wall ({cpu_ratio - 1:+.1%} cpu); target <= "
        f"{TARGET_OVERHEAD:.0%} on the CPU with the tiny model: {verdict}"
    )
    console.print(
        f"load average (1 min) {load:.2f} before, {os.getloadavg()[0]:.2f} after, "
        f"on {os.cpu_count()} cores"
    )


def main(args: argparse.Namespace) -> None:
    policy = smollm2_model()
    config = experiment(policy, args)  # loads the backends, the CPU learner's pins among them
    unpin_cpu_kernels()  # as TrlBackend does, before torch's first product: MKL's fast branch
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    console = bench_console()
    place = placement(config.settings_of(TrlSettings), args.threads)
    data = generate(shared_start(config, SEED), round_seed(SEED, 0, "data")).instances
    suite = experiment_suite(config.task_object, config.validation, config.limit)
    validation = [item.item for item in suite.items]
    arguments, peft_config = harness_trainer_arguments(
        config, data, place, round_seed(SEED, 0, "train")
    )
    console.print(
        f"machine: {cpu_model()} ({os.cpu_count()} cores), torch threads "
        f"{torch.get_num_threads()}, MKL branch {mkl_branch()}; torch {torch.__version__}, "
        f"transformers {version('transformers')}, trl {version('trl')}"
    )
    console.print(
        f"model {policy.name}; round: {len(data)} instances x n = {config.grpo.group_size}, "
        f"{PROMPTS_PER_STEP} prompts per step, answers <= {args.answer_tokens} tokens, "
        f"1 epoch; validation {len(validation)} instances; serving "
        f"{'on' if args.serve else 'off'}; {args.repeats} repeat(s), order bare/harness "
        "alternating in pairs"
    )
    warm_up(config, data)
    load = os.getloadavg()[0]
    bare: list[Timing] = []
    harness: list[Timing] = []
    for i in range(args.repeats):
        order = ("bare", "harness") if i % 2 == 0 else ("harness", "bare")
        for side in order:
            workdir = Path(tempfile.mkdtemp(prefix=f"bench-trl-{side}-"))
            try:
                if side == "bare":
                    bare.append(
                        bare_round(config, arguments, peft_config, data, validation, workdir)
                    )
                else:
                    harness.append(
                        harness_round(
                            config, validation, workdir, threads=args.threads, serve=args.serve
                        )
                    )
            finally:
                shutil.rmtree(workdir, ignore_errors=True)
            done = (bare if side == "bare" else harness)[-1]
            console.print(f"repeat {i + 1}, {side}: {done.total:.1f}s")
    report(bare, harness, args, load)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--rounds-instances", type=int, default=4, help="training instances in the round"
    )
    parser.add_argument("--group-size", type=int, default=2, help="answers per prompt (n)")
    parser.add_argument("--answer-tokens", type=int, default=16, help="answer length bound")
    parser.add_argument(
        "--validation", type=int, default=2, help="validation instances (a stratified subset)"
    )
    parser.add_argument("--repeats", type=int, default=2, help="bare/harness pairs")
    parser.add_argument(
        "--threads", type=int, default=1, help="torch threads (see the module docstring)"
    )
    parser.add_argument(
        "--serve",
        action="store_true",
        help="also start and stop a transformers server on the round's model",
    )
    main(parser.parse_args())
