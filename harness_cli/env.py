"""`harness env ...`: generate, show and verify MAPF-FrozenLake instances; build the suites."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TimeElapsedColumn

from envdesign_common import InputError, atomic_write_bytes, provenance, read_stream, read_text
from envdesign_common.field_errors import ConfigError, error_message
from envdesign_common.yaml_mappings import read_mapping
from harness_cli.common import fail
from harness_cli.help_pages import App
from harness_cli.lake_view import lake_picture, stats_table
from mapf_env import Instance, Objective, Optimum
from mapf_env.config import MAX_SAMPLES, EnvConfig
from mapf_env.export import read_jsonl, read_parquet, write_jsonl, write_parquet
from mapf_env.generator import default_workers, generate
from mapf_env.projection import project
from mapf_env.reward import reward
from mapf_env.suites import (
    SUITES,
    BuiltSuite,
    SuiteChecksumError,
    build_suite,
    content_sha256,
    load_manifest,
    load_suite,
    write_suites,
)
from mapf_env.verifier import verify

app = App(
    help="The MAPF-FrozenLake testbed: generate, show, verify, build suites.", no_args_is_help=True
)
console = Console()
GENERATION_SCHEMA = "1"


def _advance(bar: Progress, task: TaskID) -> Callable[[int, int], None]:
    """A progress callback that moves one bar of `bar`."""

    def update(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total)

    return update


def _progress() -> Progress:
    return Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )


@app.command("generate")
def generate_cmd(
    config_path: Annotated[
        Path, typer.Argument(help="EnvConfig YAML, e.g. configs/env/uniform.yaml")
    ],
    seed: Annotated[int, typer.Option(help="Round seed; same seed, same bytes.")] = 0,
    out: Annotated[
        Path | None, typer.Option(help="Write train.jsonl, train.parquet and generation.json here.")
    ] = None,
    workers: Annotated[int | None, typer.Option(help="Processes (default: all cores).")] = None,
    samples: Annotated[
        int | None, typer.Option(help="Override the config's sample budget.")
    ] = None,
    lenient: Annotated[
        bool,
        typer.Option(
            help="Project values the constraints refuse -- ratios not summing to 1, missing "
            "sizes, hole_ratio above 0.5, shares outside [0, 1] -- onto them and print each "
            "change. Misspelt or unknown keys, values that are not numbers and bad YAML are "
            "still refused."
        ),
    ] = False,
) -> None:
    """Generate a round's dataset from a config and print what was achieved per size."""
    if samples is not None and not 1 <= samples <= MAX_SAMPLES:
        raise fail(f"--samples {samples}: give 1 to {MAX_SAMPLES} instances")
    config = _load_config(config_path, lenient)
    if samples is not None:  # checked above: model_copy does not validate
        config = config.model_copy(update={"samples": samples})
    try:
        with _progress() as bar:
            task = bar.add_task("generating", total=config.samples)
            result = generate(config, seed, workers=workers, progress=_advance(bar, task))
    except ConfigError as err:  # what only the whole config shows (8 agents on a 3x3 grid)
        raise fail(f"{config_path}: {err}") from None
    console.print(stats_table(result.stats))
    for line in result.stats.shortfalls():
        console.print(f"[yellow]shortfall:[/] {line}")
    if out is not None:
        origin = {"seed": seed, "config": config.model_dump(mode="json")}
        write_jsonl(result.instances, out / "train.jsonl")
        write_parquet(result.instances, out / "train.parquet", split="train", metadata_extra=origin)
        record = provenance(GENERATION_SCHEMA, **origin, stats=result.stats.model_dump(mode="json"))
        atomic_write_bytes(out / "generation.json", json.dumps(record, indent=2).encode())
        console.print(f"wrote {len(result.instances)} instances to {out}/")


def _load_config(path: Path, lenient: bool) -> EnvConfig:
    """The config at `path`, one line per bad field; `lenient` projects it, showing each change."""
    if not path.is_file():
        raise fail(f"no config file at {path}")
    try:
        data = read_mapping(path)
    except ConfigError as err:
        raise fail(str(err)) from None
    if not lenient:
        try:
            return EnvConfig.from_mapping(data, str(path))
        except ConfigError as err:
            raise fail(f"{err}{_lenient_hint(data)}") from None
    try:
        projection = project(data)
    except ConfigError as err:
        message = error_message([(str(path), err.lines)]) if err.lines else f"{path}: {err}"
        raise fail(message) from None
    for note in projection.notes:
        console.print(f"[yellow]projected:[/] {note}")
    return projection.config


def _lenient_hint(data: dict[str, object]) -> str:
    """Offer `--lenient` only where it would work: it projects values, it does not fix keys."""
    try:
        project(data)
    except ConfigError:
        return ""
    return "\n(--lenient would project these values onto the constraints, showing each change)"


def _pick(source: str, index: int | None, instance_id: str | None) -> Instance:
    """An instance from a suite name or a .jsonl / .parquet file, by index or id."""
    if source in SUITES:
        try:
            instances = [item.instance for item in load_suite(source).items]
        except (OSError, SuiteChecksumError) as err:
            raise fail(str(err)) from None
    else:
        path = Path(source)
        if not path.is_file():
            raise fail(f"{source!r} is neither a file nor a suite ({', '.join(SUITES)})")
        try:
            instances = read_parquet(path) if path.suffix == ".parquet" else read_jsonl(path)
        except (ValueError, OSError) as err:
            raise fail(str(err)) from None
    if instance_id is not None:
        found = [inst for inst in instances if inst.id == instance_id]
        if not found:
            raise fail(f"no instance with id {instance_id!r} in {source}")
        return found[0]
    i = index or 0
    if not 0 <= i < len(instances):
        raise fail(f"index {i} out of range: {source} holds {len(instances)} instances")
    return instances[i]


@app.command("show")
def show_cmd(
    source: Annotated[str, typer.Argument(help="A suite name or a .jsonl/.parquet dataset.")],
    index: Annotated[int | None, typer.Option(help="Which instance (0-based).")] = None,
    instance_id: Annotated[str | None, typer.Option("--id", help="Pick by instance id.")] = None,
    plan: Annotated[bool, typer.Option(help="Draw the reference optimal plan.")] = False,
) -> None:
    """Draw an instance in the terminal."""
    inst = _pick(source, index, instance_id)
    console.print(
        f"[bold]{inst.id or 'instance'}[/]: {inst.size}x{inst.size}, "
        f"{inst.n_agents} agents, {len(inst.holes)} holes"
    )
    console.print(lake_picture(inst, inst.optimum.plan if plan and inst.optimum else None))
    if inst.optimum:
        op = inst.optimum
        console.print(
            f"optimal {op.objective.value}: {op.cost} (individual {list(op.individual)},"
            f" needs conflict resolution: {op.needs_conflict_resolution}); exact minima: "
            f"{_minima_text(op)}"
        )


@app.command("verify")
def verify_cmd(
    source: Annotated[str, typer.Argument(help="A suite name or a .jsonl/.parquet dataset.")],
    response: Annotated[Path, typer.Argument(help="File with the model's answer, or - for stdin.")],
    index: Annotated[int | None, typer.Option(help="Which instance (0-based).")] = None,
    instance_id: Annotated[str | None, typer.Option("--id", help="Pick by instance id.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the verdict as JSON.")] = False,
) -> None:
    """Check a response against an instance: the eight checks, optimality and the reward.

    The instance's known optimum is printed whether or not the answer is valid.

    Exit status: 0 valid (optimal or not), 1 invalid, 2 usage error (no such instance or file).
    """
    inst = _pick(source, index, instance_id)
    text = _read_response(response)
    verdict = verify(inst, text)
    breakdown = reward(inst, text)
    optimum = _optimum(inst)
    scores = breakdown.as_dict()
    if as_json:
        print(json.dumps({"verdict": _plain(verdict), "optimum": optimum, "reward": scores}))
    else:
        status = "[green]valid[/]" if verdict.valid else f"[red]invalid: {verdict.failure}[/]"
        known = "no optimum known"
        if optimum is not None:
            known = f"optimum {optimum['objective']} {optimum['cost']}"
        console.print(
            f"{status}  optimal: {verdict.optimal}  cost: {verdict.cost} ({known})  "
            f"optimal makespan: {_flag(verdict.optimal_makespan)}  "
            f"optimal SOC: {_flag(verdict.optimal_soc)}"
        )
        console.print(verdict.detail)
        console.print("reward: " + ", ".join(f"{k}={v:.3f}" for k, v in scores.items()))
    if not verdict.valid:
        raise typer.Exit(1)


def _read_response(response: Path) -> str:
    """The answer from `response` (or stdin for -), at most the input-file limit (4 MB): an
    endless device or stream is cut there, not read whole; a missing file is a usage error."""
    try:
        if str(response) == "-":
            return read_stream(sys.stdin.buffer, "stdin")
        if not response.exists():
            raise fail(f"no response file at {response}; pass a file or - for stdin")
        return read_text(response)
    except InputError as err:
        raise fail(str(err)) from None


def _optimum(inst: Instance) -> dict[str, object] | None:
    """The instance's answer key in brief: what `verify` prints even for an invalid answer."""
    op = inst.optimum
    if op is None:
        return None
    return {"objective": op.objective.value, "cost": op.cost, "soc": op.soc,
            "makespan": op.makespan, "min_soc": op.min_soc,
            "min_makespan": op.min_makespan}  # fmt: skip


def _minima_text(op: Optimum) -> str:
    return ", ".join(
        f"{objective.value} {'not solved' if (v := op.minimum(objective)) is None else v}"
        for objective in Objective
    )


def _flag(value: bool | None) -> str:
    """A verdict's optimality under one objective; 'unknown' when no minimum is recorded."""
    return "unknown" if value is None else str(value)


def _plain(verdict: object) -> dict[str, object]:
    fields = getattr(verdict, "__dataclass_fields__", {})
    return {name: getattr(verdict, name) for name in fields}


@app.command("bench-build")
def bench_build_cmd(
    out: Annotated[
        Path | None, typer.Option(help="Write the suites and manifest.json here.")
    ] = None,
    suite: Annotated[list[str] | None, typer.Option(help="Suites to build (default: all).")] = None,
    workers: Annotated[int | None, typer.Option(help="Processes (default: all cores).")] = None,
    fresh: Annotated[
        bool, typer.Option(help="Ignore the shipped manifest's node-limit replay (new version).")
    ] = False,
) -> None:
    """Rebuild the fixed benchmark suites from their seeds and compare them with the shipped ones.

    Without --out it only checks: each rebuilt suite's content checksum must equal the shipped
    manifest's. With --out it also writes the suite files and a manifest there. A suite that
    must share no puzzle with others (validation-multi) is checked against those built in the
    same command, else against the shipped ones.
    """
    names = suite or list(SUITES)
    unknown = [n for n in names if n not in SUITES]
    if unknown:
        raise fail(f"unknown suite(s) {unknown}; suites are {', '.join(SUITES)}")
    names = [n for n in SUITES if n in names]  # benchmarks first: validation-multi avoids them
    try:
        shipped = {} if fresh else load_manifest()["suites"]
    except FileNotFoundError:
        shipped = {}
    built: dict[str, BuiltSuite] = {}
    with _progress() as bar:
        for name in names:
            task = bar.add_task(name)
            built[name] = build_suite(
                SUITES[name],
                workers=workers or default_workers(),
                progress=_advance(bar, task),
                limited=shipped.get(name, {}).get("limited"),
                others={done: b.items for done, b in built.items()},
            )
    mismatched = []
    for name, result in built.items():
        checksum = content_sha256(result.items)
        expected = shipped.get(name, {}).get("content_sha256")
        same = "new" if expected is None else ("same" if checksum == expected else "DIFFERENT")
        if same == "DIFFERENT":
            mismatched.append(name)
        console.print(f"{name}: {len(result.items)} instances, content {checksum[:16]}… ({same})")
    if out is not None:
        write_suites(out, built)
        console.print(f"wrote {', '.join(built)} to {out}/")
    if mismatched and out is None:
        raise fail(f"rebuilt {', '.join(mismatched)} differ from the shipped suites")
