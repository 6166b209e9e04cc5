"""`TrlBackend`: the round loop's `Backend` with a Hugging Face model, on one GPU or a CPU.

* ``train_round`` runs TRL's `GRPOTrainer` on the round's items, in this process: the
  experiment's task gives the prompts and the reward, with the running valid rate as its state
  (`reward.RoundReward`), one `TrainStep` per optimiser step (`curves`). Nothing here knows a
  task: any task the experiment names trains and answers alike. TRL builds the
  reference model from the directory the round starts from, so the KL is to the round's start
  (with a LoRA adapter kept across rounds, to the model without the adapter, as PEFT does).
* ``respond`` answers with transformers' batched ``generate`` (greedy, or sampled with the
  call's seed); the loop scores the texts as for every backend.
* ``save`` writes the round's model as a Hugging Face directory (``trl/round-NNN/model``: merged
  weights, or the LoRA adapter), its checksum into ``trl_state.json`` and into the round's
  record (`target_record`); ``load`` checks the checksum before it continues from it. A round
  deletes the models no one needs any more (`retention`) and says what it freed.
* ``endpoint`` serves the current or the base model with ``transformers serve`` (or ``vllm
  serve``) on 127.0.0.1 (`serving`); ``release`` stops it.

Model loads (training, evaluation, servers) and notes go to the round's record
(`take_overhead`), as the verl backend's do.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from designers import Endpoint
from envdesign_common import RunningValidRate
from harness.backends.base import BackendOverhead, RoundTraining
from harness.backends.ledger import LoadLedger
from harness.backends.model_state import ModelState
from harness.backends.servers import DesignServers
from harness.backends.trl.checksums import directory_sha256
from harness.backends.trl.curves import StepCurves
from harness.backends.trl.generation import generate_answers
from harness.backends.trl.loading import LoadedModel, Placement, load_model, placement
from harness.backends.trl.retention import prune_rounds
from harness.backends.trl.reward import RoundReward
from harness.backends.trl.serving import model_server
from harness.backends.trl.settings import TrlSettings
from harness.backends.trl.trainer import fitting_prompts, grpo_trainer
from harness.experiment import ExperimentConfig
from run_records import LoadKind, TrainStep, summarise, unpin_cpu_kernels

if TYPE_CHECKING:
    from transformers import PreTrainedModel

__all__ = ["TrlBackend"]


class TrlBackend:
    """GRPO with TRL on a Hugging Face model; see the module docstring."""

    name = "trl"
    serves_models = True

    def __init__(
        self, experiment: ExperimentConfig, workdir: Path, *, threads: int | None = None
    ) -> None:
        unpin_cpu_kernels()  # before this process's first product: MKL's fast branch
        self.settings: TrlSettings = experiment.settings_of(TrlSettings)
        self.experiment = experiment
        self.task = experiment.task_object
        self.workdir = Path(workdir).absolute()
        self.root = self.workdir / "trl"
        self.place: Placement = placement(self.settings, threads)
        self.ledger = LoadLedger()
        self._servers = DesignServers(self.ledger)
        self._loaded: LoadedModel | None = None
        self.initialise(0)
        if self.place.device == "cpu" and self.place.mkl == "COMPATIBLE":
            self.ledger.note(
                "MKL runs its COMPATIBLE branch in this process (pinned for the CPU learner "
                "before this backend was built): the model's products run about 4x slower"
            )

    # --- state ----------------------------------------------------------------------------

    def initialise(self, seed: int) -> None:
        """Start from the experiment's policy (a pretrained model: `seed` draws nothing)."""
        del seed
        self.model_dir: Path | None = None
        self.model_sha256: str | None = None
        self.rounds_done = 0
        self.steps_done = 0
        self.running = RunningValidRate()
        self._loaded = None

    @property
    def current_model(self) -> str:
        """The last round's model directory, or the policy before the first round."""
        return str(self.model_dir) if self.model_dir is not None else self.experiment.policy

    def round_dir(self, n: int) -> Path:
        return self.root / f"round-{n:03d}"

    def _model(self, kind: LoadKind) -> LoadedModel:
        """The current model in memory, loaded (and the load noted as `kind`) when it is not."""
        if self._loaded is None or self._loaded.source != self.current_model:
            started = time.perf_counter()
            self._loaded = load_model(self.current_model, self.experiment.policy, self.place,
                                      self.settings, trainable=kind == "training")  # fmt: skip
            self.ledger.load(kind, self.current_model, time.perf_counter() - started)
        return self._loaded

    def save(self, directory: Path) -> None:
        """Where the next round starts: `trl_state.json` pointing at the round's model."""
        ModelState(
            policy=self.experiment.policy, model=self.model_dir, rounds_done=self.rounds_done,
            steps_done=self.steps_done, running_valid_rate=self.running.value,
            running_updates=self.running.updates, model_sha256=self.model_sha256,
        ).write(directory, self.name)  # fmt: skip

    def load(self, directory: Path) -> None:
        """Continue from what `save` wrote, once the model's checksum matches the record's."""
        state = ModelState.read(directory, self.name)
        if state.model is not None and state.model_sha256 is not None:
            found = directory_sha256(state.model)
            if found != state.model_sha256:
                raise ValueError(
                    f"{state.model} does not match its checksum in {directory} (sha256 "
                    f"{found[:12]}..., recorded {state.model_sha256[:12]}...): the round's "
                    "model was changed after it was saved; rerun the run without --resume"
                )
        self.initialise(0)
        self.model_dir, self.model_sha256 = state.model, state.model_sha256
        self.rounds_done, self.steps_done = state.rounds_done, state.steps_done
        self.running = RunningValidRate(initial=state.running_valid_rate)
        self.running.updates = state.running_updates

    # --- training -------------------------------------------------------------------------

    def train_round(
        self,
        instances: Sequence[Any],
        *,
        epochs: int,
        seed: int,
        on_step: Callable[[TrainStep], None] | None = None,
    ) -> RoundTraining:
        """One round of GRPO in TRL on the task's `instances`, continuing from the previous
        round's model."""
        self.release()
        started = time.perf_counter()
        n = self.rounds_done
        if not self.settings.keep_all_rounds:
            freed = prune_rounds(self.root, keep={self.round_dir(n - 1), self.round_dir(n)})
            if freed:
                self.ledger.note(f"round {n}: retention: {freed}")
        loaded = self._model("training")
        fitting, left_out = fitting_prompts(self.task, instances, loaded.tokenizer, self.settings)
        if left_out:
            self.ledger.note(
                f"round {n}: {left_out} of {len(instances)} prompt(s) are longer than "
                f"trl.max_prompt_length ({self.settings.max_prompt_length} tokens) and were "
                "left out of training"
            )
        if not fitting:
            raise ValueError(
                f"round {n}: every prompt is longer than trl.max_prompt_length "
                f"({self.settings.max_prompt_length} tokens): raise it"
            )
        valid_rate_at_start = self.running.value
        reward = RoundReward(self.task, fitting, self.running,
                             count_tokens=self.settings.length_unit == "tokens")  # fmt: skip
        grpo = self.experiment.grpo
        steps_per_epoch = -(-len(fitting) // self.settings.prompts_per_step)
        curves = StepCurves(self.steps_done, steps_per_epoch, on_step)
        trainer = grpo_trainer(loaded, reward, curves, self.settings, grpo,
                               place=self.place, epochs=epochs, seed=seed,
                               output_dir=self.round_dir(n) / "trainer")  # fmt: skip
        trainer.train()
        model: PreTrainedModel = trainer.model
        self._finish_round(n, model, loaded)
        steps = tuple(curves.steps)
        self.steps_done += len(steps)
        summary = summarise(
            steps, epochs=epochs, samples=len(fitting), group_size=grpo.group_size,
            learning_rate=grpo.learning_rate, kl_coef=grpo.kl_coef,
            valid_rate=valid_rate_at_start,
            accuracy_weight=self.task.accuracy_weight(valid_rate_at_start),
        )  # fmt: skip
        return RoundTraining(steps=steps, epochs=epochs, samples=len(fitting),
                             seconds=time.perf_counter() - started, summary=summary)  # fmt: skip

    def _finish_round(self, n: int, model: PreTrainedModel, loaded: LoadedModel) -> None:
        """Write round `n`'s model directory (renamed into place whole) and make it current."""
        out = self.round_dir(n) / "model"
        staging = out.with_name("model.partial")
        shutil.rmtree(staging, ignore_errors=True)
        merged = self.settings.lora.enabled and self.settings.lora.save == "merged"
        to_save: Any = model.merge_and_unload() if merged else model  # type: ignore[operator]
        to_save.save_pretrained(staging)
        loaded.tokenizer.save_pretrained(staging)
        shutil.rmtree(out, ignore_errors=True)
        staging.rename(out)
        shutil.rmtree(self.round_dir(n) / "trainer", ignore_errors=True)  # TRL's scratch
        self.model_dir, self.model_sha256 = out, directory_sha256(out)
        self.rounds_done = n + 1
        self._loaded = None  # the next round loads the saved model: TRL's reference comes from it

    # --- answers --------------------------------------------------------------------------

    def respond(
        self, instances: Sequence[Any], *, samples: int = 1, greedy: bool = True, seed: int = 0
    ) -> list[list[str]]:
        """`samples` answers to each of the task's `instances` (greedy: one, no sampling)."""
        if samples < 1:
            raise ValueError(f"samples must be at least 1, got {samples}")
        if not instances:
            return []
        self.release()
        loaded = self._model("evaluation")
        return generate_answers(loaded, self.task, instances, self.settings, self.place,
                                samples=samples, greedy=greedy, seed=seed)  # fmt: skip

    # --- serving --------------------------------------------------------------------------

    def endpoint(self, which: Literal["policy", "base"]) -> Endpoint | None:
        """Serve the current checkpoint (policy) or the base model; `release` stops it."""
        running = self._servers.endpoint(which)
        if running is not None:
            return running
        model = self.experiment.policy if which == "base" else self.current_model
        self._loaded = None  # the server needs the memory the model in this process holds
        server = model_server(model, self.experiment.policy, which, self.settings, self.place,
                              self.root / "logs", self.root / "serving")  # fmt: skip
        return self._servers.start(which, model, server, self.settings.serve_timeout_s)

    def release(self) -> None:
        """Stop every server `endpoint` started."""
        self._servers.stop_all()

    # --- overhead -------------------------------------------------------------------------

    def take_overhead(self) -> BackendOverhead:
        return self.ledger.take()

    def target_record(self) -> dict[str, Any]:
        """What the round ran on and made: versions, device, dtype, and the model's checksum."""
        record: dict[str, Any] = dict(self.place.as_record())
        if self.model_dir is not None:
            record["model"] = self.model_dir.relative_to(self.workdir).as_posix()
            record["model_sha256"] = self.model_sha256
        return record
