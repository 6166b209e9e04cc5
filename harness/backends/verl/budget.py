"""The overhead budget of a verl run before it runs: what each round loads, and how much it reads.

Every round starts processes that must load a model before they do their job (training,
evaluation, serving a model-reading designer), each minutes long on a 4B model. Their seconds
depend on the disk, the page cache, Ray's start and CUDA graph capture, so the dry run does not
predict them -- each round's record measures them (`loads`, shown by ``harness runs show``).
What it gives is the cost model's inputs, which are known in advance:

* loads per round, by kind: training builds the actor and, with a KL term, the reference model
  from the starting model's files (the rollout engine starts with ``load_format: dummy`` in
  both lines and receives the actor's weights in memory, so it reads nothing); evaluation is one
  vLLM engine on the round's model -- none with ``validate_in_verl``, whose answers come from
  verl's validation after the last step; serving is one ``vllm serve`` per model the designer
  reads (`self`: the round's model, `base`: the policy), after every round but the last;
* the bytes each load reads: the policy's weight files as they are on disk, and a trained
  round's Hugging Face copy, which verl writes in fp32 (`footprint.checkpoint_footprint`);
  FSDP may read the files once per GPU rank (every rank when the model ties its embeddings),
  which the figures, per model built, leave out;
* the round's optimiser steps (`BatchPlan`), the part of a round that is training proper.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from designers import ServedModel
from harness.backends.verl.batch_plan import BatchPlan
from harness.backends.verl.footprint import (
    BF16,
    checkpoint_footprint,
    model_size,
    stated_size,
)
from harness.backends.verl.settings import verl_section
from harness.byte_sizes import size
from harness.experiment import ExperimentConfig
from run_records import LoadKind


@dataclass(frozen=True, slots=True)
class PlannedLoad:
    """One model load a round will make."""

    kind: LoadKind
    model: str
    """Which model, in words: the policy, or round n's model."""
    copies: int
    """Models built from the files (training: the actor, and the reference with a KL term)."""
    bytes_each: int | None
    """The files read per model built; None where the model's size is not known here."""

    @property
    def read(self) -> int | None:
        return None if self.bytes_each is None else self.copies * self.bytes_each


@dataclass(frozen=True, slots=True)
class Weights:
    """What a load of the policy and of a trained round's model reads."""

    policy: int | None
    trained: int | None
    source: str


def weights(experiment: ExperimentConfig, env: Mapping[str, str] | None = None) -> Weights:
    """The policy's weight files as on disk, and the fp32 Hugging Face copy of a trained round."""
    found = stated_size(model_size(experiment.policy, env=env), verl_section(experiment))
    if found.params is None:
        return Weights(None, None, "their size is unknown here (see the disk budget)")
    policy = None
    if found.location is not None and found.complete:
        files = [p for p in Path(found.location).glob("*.safetensors") if p.is_file()]
        policy = sum(p.stat().st_size for p in files) or None
    trained = checkpoint_footprint(found.params, verl_section(experiment)).hf_model
    if policy is None:  # no files to measure: a stated count, read as the bf16 models ship in
        return Weights(BF16 * found.params, trained, f"{found.describe()}; policy read as bf16")
    return Weights(policy, trained, found.describe())


def round_loads(
    experiment: ExperimentConfig, n: int, served: Sequence[ServedModel], w: Weights
) -> list[PlannedLoad]:
    """The loads of round `n` (0-based) of a run whose designer reads the `served` models."""
    s = verl_section(experiment)
    start = "the policy" if n == 0 else f"round {n - 1}'s model"
    start_bytes = w.policy if n == 0 else w.trained
    copies = 2 if experiment.grpo.kl_coef > 0 else 1
    loads = [PlannedLoad("training", start, copies, start_bytes)]
    if not s.validate_in_verl:
        loads.append(PlannedLoad("evaluation", f"round {n}'s model", 1, w.trained))
    if n + 1 < experiment.rounds:
        for which in served:
            if which == "policy":
                loads.append(PlannedLoad("serving-policy", f"round {n}'s model", 1, w.trained))
            else:
                loads.append(PlannedLoad("serving-base", "the policy", 1, w.policy))
    return loads


def _read(loads: Sequence[PlannedLoad]) -> str:
    known = [x.read for x in loads]
    if not loads:
        return "nothing read"
    if any(r is None for r in known):
        return "bytes read unknown here"
    return f"{size(sum(r for r in known if r is not None))} read"


def _load(x: PlannedLoad) -> str:
    what = {"training": "training (actor" + (" + reference)" if x.copies == 2 else ")"),
            "evaluation": "evaluation (vLLM)", "serving-policy": "serving self (vllm serve)",
            "serving-base": "serving base (vllm serve)"}[x.kind]  # fmt: skip
    each = "" if x.bytes_each is None else f", {x.copies} x {size(x.bytes_each)}"
    return f"{what} of {x.model}{each}"


def describe_overhead(
    experiment: ExperimentConfig,
    plan: BatchPlan,
    served: Sequence[ServedModel],
    w: Weights,
    prefix: str = "# ",
) -> str:
    """The run's overhead budget, round by round, for the dry run."""
    s = verl_section(experiment)
    lines = [f"overhead budget per round (load seconds are measured into each round's record; "
             f"weights: {w.source}):"]  # fmt: skip
    for n in range(experiment.rounds):
        loads = round_loads(experiment, n, served, w)
        lines.append(f"  round {n}: {len(loads)} model load(s), {_read(loads)}: "
                     + "; ".join(map(_load, loads)))  # fmt: skip
    evaluation = (
        f"verl validates greedily after step {plan.total_steps} and the round's report is read "
        "from its dump (validate_in_verl): no vLLM load, unless the dump lacks an answer"
        if s.validate_in_verl
        else "a separate vLLM pass on the round's model (validate_in_verl: false)"
    )
    suites = len(experiment.benchmarks)
    lines += [
        f"  training proper: {plan.total_steps} optimiser steps per round",
        f"  evaluation: {evaluation}",
        f"  after the last round: {2 * suites} vLLM load(s) of the final model (greedy and "
        f"best-of-{experiment.best_of} on each of {suites} benchmark suite(s))",
    ]
    return "".join(f"{prefix}{line}\n" for line in lines)
