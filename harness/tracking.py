"""Training curves in TensorBoard or Weights & Biases, under the names verl gives them.

A GPU run on verl logs `critic/score/mean`, `actor/kl_loss`, `actor/pg_loss` and
`val-core/<data source>/...` against the global step; the CPU learner's curves are written under
the same names so both kinds of run look alike in the tools people already use. What verl has
no name for (the rollouts' valid rate, the round index) goes under `train/` and `training/`.

The backends are optional extras (`pip install "envdesign-bench[tensorboard]"` or `[wandb]`) and
are imported only when asked for. TensorBoard event files go to the run directory's
`tensorboard/`; a W&B run is named after the experiment, designer and seed, and resumes
(same id) when the harness resumes the run. W&B reads its key and mode (`WANDB_API_KEY`,
`WANDB_MODE=offline`) from the environment, never from a file the harness writes.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from harness.events import Phase, RunObserver
from run_records import RoundResult, TrainStep, safe_name
from tasks import DEFAULT_TASK, Rates, ReportRates, family_of


class LoggerUnavailable(RuntimeError):
    """An asked-for logger whose package is not installed."""


def step_metrics(step: TrainStep, n: int) -> dict[str, float]:
    """One optimiser step under verl's metric names."""
    return {
        "critic/score/mean": step.reward,
        "actor/pg_loss": step.loss,
        "actor/kl_loss": step.kl,
        "train/valid_rate": step.valid_rate,
        "training/epoch": float(step.epoch),
        "training/round": float(n),
        "timing_s/step": step.seconds,
    }


def round_metrics(result: RoundResult, rates: ReportRates, source: str) -> dict[str, float]:
    """A finished round's validation rates (greedy: `mean@1`), overall and per value of the
    task's first cut (MAPF-FrozenLake: map size), under data source `source`."""
    prefix = f"val-core/{source}"
    data = {"timing_s/train_round": result.train_seconds}
    data.update(_rates(f"{prefix}/{{}}/mean@1", rates.overall))
    for value, group in rates.by_first_cut.items():
        data.update(_rates(f"val-aux/{source}/{value}/{{}}", group))
    return data


def _rates(key: str, rates: Rates) -> dict[str, float]:
    """Valid rate, mean score and each optimal rate the validation set carries minima for."""
    named = {"valid_rate": rates.valid_rate, "score": rates.score}
    named.update({f"optimal_{kind.lower()}_rate": rate for kind, rate in rates.optimal.items()
                  if rate is not None})  # fmt: skip
    return {key.format(name): rate for name, rate in named.items()}


def data_source(task_id: str) -> str:
    """The data source verl would name the task's rows with: its family, in snake case
    (``mapf-frozenlake-v2`` -> ``mapf_frozenlake``)."""
    return family_of(task_id)[0].replace("-", "_")


class Writer(Protocol):
    def log(self, data: Mapping[str, float], step: int) -> None: ...

    def close(self) -> None: ...


class Tracker:
    """A `RunObserver` that turns steps and rounds into metrics for one `Writer`.

    Validation metrics are logged at the global step of the round's last optimiser step, as
    verl logs `val-core/...` at the step after which it validated.
    """

    def __init__(self, writer: Writer, source: str) -> None:
        self.writer = writer
        self.source = source
        self.last_step = 0

    def phase(self, name: Phase, n: int) -> None:
        pass

    def step(self, n: int, step: TrainStep) -> None:
        self.last_step = step.step
        self.writer.log(step_metrics(step, n), step.step)

    def round_done(self, result: RoundResult, rates: ReportRates) -> None:
        self.writer.log(round_metrics(result, rates, self.source), self.last_step)

    def close(self) -> None:
        self.writer.close()


def _require(module: str, extra: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise LoggerUnavailable(
            f"--logger {extra} needs {module.split('.')[0]}: pip install 'envdesign-bench[{extra}]'"
        ) from err


class TensorBoardWriter:
    """Scalars to TensorBoard event files in `directory` (torch's SummaryWriter, as verl)."""

    def __init__(self, directory: Path) -> None:
        summary = _require("torch.utils.tensorboard", "tensorboard")
        directory.mkdir(parents=True, exist_ok=True)
        self.writer = summary.SummaryWriter(log_dir=str(directory))

    def log(self, data: Mapping[str, float], step: int) -> None:
        for key, value in data.items():
            self.writer.add_scalar(key, value, step)
        self.writer.flush()

    def close(self) -> None:
        self.writer.close()


class WandbWriter:
    """A W&B run per harness run; `id` makes a resumed harness run continue the same W&B run."""

    def __init__(self, project: str, name: str, run_id: str, directory: Path,
                 config: Mapping[str, Any]) -> None:  # fmt: skip
        wandb = _require("wandb", "wandb")
        directory.mkdir(parents=True, exist_ok=True)
        self.run = wandb.init(project=project, name=name, id=run_id, dir=str(directory),
                              config=dict(config), resume="allow", reinit="create_new")  # fmt: skip

    def log(self, data: Mapping[str, float], step: int) -> None:
        self.run.log(dict(data), step=step)

    def close(self) -> None:
        """Finish the run, then wait until wandb-core has closed its transaction log.

        `finish()` only informs the service that the run is done and returns before the
        `.wandb` file is flushed; a worker that then exits without atexit hooks (a pool or
        Ray worker) would lose the tail. A process holds one harness run at a time, so
        tearing the service down finishes nothing else; the next run starts a new one.
        """
        self.run.finish()
        _require("wandb", "wandb").teardown()


REQUIRES: dict[str, tuple[str, ...]] = {  # logger -> the modules it imports
    "tensorboard": ("tensorboard", "torch.utils.tensorboard"),
    "wandb": ("wandb",),
}


def check_loggers(names: Sequence[str]) -> None:
    """Fail before any run starts if a logger is unknown or its package is missing."""
    for name in names:
        if name not in REQUIRES:
            raise LoggerUnavailable(f"unknown logger {name!r}; loggers are {', '.join(REQUIRES)}")
        for module in REQUIRES[name]:
            _require(module, name)


def make_trackers(
    names: Sequence[str],
    run_path: Path,
    *,
    project: str,
    designer: str,
    seed: int,
    config: Mapping[str, Any],
) -> list[RunObserver]:
    """Observers for the asked-for loggers of one run (an unknown name is a clear error)."""
    check_loggers(names)
    source = data_source(str(config.get("task") or DEFAULT_TASK))
    trackers: list[RunObserver] = []
    for name in dict.fromkeys(names):
        if name == "tensorboard":
            trackers.append(Tracker(TensorBoardWriter(run_path / "tensorboard"), source))
        elif name == "wandb":
            run_name = f"{designer}-seed{seed}"
            run_id = safe_name(f"{project}--{run_name}")[:64]
            writer = WandbWriter(project, run_name, run_id, run_path, config)
            trackers.append(Tracker(writer, source))
    return trackers
