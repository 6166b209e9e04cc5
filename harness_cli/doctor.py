"""`harness doctor`: whether this machine can run an experiment, before anything runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from harness.doctor import MachineProbe, diagnose, exit_code, report_lines, verdict
from harness_cli.common import (
    OutOption,
    SetOption,
    WorkersOption,
    fail,
    roster_overrides,
    runs_at_once,
)
from harness_cli.run import load_experiment, preset_path

__all__ = ["doctor_cmd"]


def doctor_cmd(
    preset: Annotated[
        str,
        typer.Argument(
            help="A shipped preset (paper_qwen3_4b, quick, ...) or an experiment YAML.",
            metavar="PRESET_OR_CONFIG",
        ),
    ] = "paper_qwen3_4b",
    designers: Annotated[
        str | None,
        typer.Option(help="Comma-separated designer entries; default: the preset's."),
    ] = None,
    seeds: Annotated[
        int | None, typer.Option(help="Seeds 0..N-1 (the disk budget counts the runs).")
    ] = None,
    set_: SetOption = None,
    out: OutOption = Path("runs"),
    workers: WorkersOption = None,
    ray_address: Annotated[
        str | None,
        typer.Option(
            help="The Ray cluster training rounds are submitted to (http://head:8265, as "
            "harness compare takes it): probed, and this node's GPUs are then checked only "
            "for evaluation and serving."
        ),
    ] = None,
    params: Annotated[
        float | None,
        typer.Option(
            help="The model's parameter count (e.g. 4.02e9) where no local copy tells it; "
            "used for the disk budget and the memory estimates."
        ),
    ] = None,
) -> None:
    """Check GPUs, CUDA, packages, the model, disk, Ray, ports and keys for an experiment.

    One line per finding with its fix; exit 0 when nothing fails (warnings allowed), 1
    otherwise. The memory and disk figures are estimates from the model's size.
    """
    roster = roster_overrides(designers, seeds)
    if params is not None and params < 1:
        raise fail(f"--params {params:g}: give the model's parameter count, e.g. 4.02e9")
    experiment = load_experiment(preset_path(preset), [*roster, *(set_ or [])])
    findings = diagnose(
        experiment,
        MachineProbe(),
        root=out,
        ray_address=ray_address,
        params=None if params is None else int(params),
        concurrent=runs_at_once(experiment, workers),
    )
    for line in report_lines(findings):
        typer.echo(line)
    typer.echo(verdict(findings, experiment.name))
    raise typer.Exit(exit_code(findings))
