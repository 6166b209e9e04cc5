"""`harness run` and `harness compare`: the train -> eval -> design loop from the command line."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from designers import DesignerNotReady, UnknownDesigner, designer_names
from harness.backends.factory import BackendUnavailable
from harness.cli.common import (
    JsonOption,
    OutOption,
    QuietOption,
    ResumeOption,
    SetOption,
    WorkersOption,
    fail,
)
from harness.compare import Event, compare
from harness.experiment import ExperimentConfig
from harness.run_dir import RunDirError
from harness.summary import comparison_table
from mapf_env import ConfigError

console = Console()
CHECKOUT_CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def preset_path(preset: str) -> Path:
    """A preset name (configs/<name>.yaml, here or in the source checkout) or a file path."""
    for candidate in (Path(preset), Path("configs") / f"{preset}.yaml",
                      CHECKOUT_CONFIGS / f"{preset}.yaml"):  # fmt: skip
        if candidate.is_file():
            return candidate
    raise fail(f"no preset {preset!r}: give a YAML path or a name in configs/ (e.g. quick)")


def _experiment(config: Path, overrides: list[str]) -> ExperimentConfig:
    try:
        experiment = ExperimentConfig.load(config, overrides)
    except ConfigError as err:
        raise fail(str(err)) from None
    known = set(designer_names())
    for name in experiment.designers:
        if name.split(":")[0] not in known:
            raise fail(f"unknown designer {name!r}; `harness designers list` shows them")
    return experiment


def _events(quiet: bool, as_json: bool) -> Callable[[Event], None]:
    def show(event: Event) -> None:
        designer, seed, phase, n = event
        if as_json:
            print(json.dumps({"designer": designer, "seed": seed, "phase": phase, "round": n}))
        elif not quiet:
            console.print(f"[dim]{designer} seed {seed}[/] round {n}: {phase}")

    return show


def _run(experiment: ExperimentConfig, out: Path, resume: bool, workers: int | None,
         quiet: bool, as_json: bool) -> None:  # fmt: skip
    try:
        records = compare(experiment, out, resume=resume, workers=workers,
                          on_event=_events(quiet, as_json))  # fmt: skip
    except (RunDirError, DesignerNotReady, UnknownDesigner, BackendUnavailable) as err:
        raise fail(str(err)) from None
    if as_json:
        for r in records:
            print(json.dumps({"designer": r.designer, "seed": r.seed, "result": str(out)}))
        return
    console.print(comparison_table(records))
    console.print(f"runs written under {out / experiment.name}/")


def run_cmd(
    config: Annotated[Path, typer.Argument(help="Experiment YAML (see configs/).")],
    set_: SetOption = None,
    out: OutOption = Path("runs"),
    resume: ResumeOption = False,
    workers: WorkersOption = None,
    quiet: QuietOption = False,
    as_json: JsonOption = False,
) -> None:
    """Run an experiment file: every designer x seed it names."""
    _run(_experiment(config, set_ or []), out, resume, workers, quiet, as_json)


def compare_cmd(
    designers: Annotated[str, typer.Option(help="Comma-separated designer names.")],
    preset: Annotated[str, typer.Option(help="A configs/ preset or YAML path.")] = "quick",
    seeds: Annotated[int, typer.Option(help="Seeds 0..N-1.")] = 1,
    backend: Annotated[str | None, typer.Option(help="cpu or verl.")] = None,
    set_: SetOption = None,
    out: OutOption = Path("runs"),
    resume: ResumeOption = False,
    workers: WorkersOption = None,
    quiet: QuietOption = False,
    as_json: JsonOption = False,
) -> None:
    """Compare designers on a preset: `harness compare --designers random,hand,evidence`."""
    names = [d.strip() for d in designers.split(",") if d.strip()]
    if not names:
        raise fail("--designers needs at least one name")
    if seeds < 1:
        raise fail("--seeds must be at least 1")
    overrides = [f"designers=[{', '.join(json.dumps(n) for n in names)}]",
                 f"seeds=[{', '.join(str(s) for s in range(seeds))}]",
                 *([f"backend={backend}"] if backend else []), *(set_ or [])]  # fmt: skip
    _run(_experiment(preset_path(preset), overrides), out, resume, workers, quiet, as_json)
