"""`harness eval`: a model (or a CPU learner checkpoint) answers the benchmarks zero-shot."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from harness.interrupts import as_interrupted, interrupts_raise
from harness.policy_eval import (
    EvalOutcome,
    PolicyEvalError,
    Requests,
    Sampling,
    evaluate_policy,
    policy_dir,
    resolve_policy,
)
from harness_cli.common import JsonOption, OutOption, QuietOption, fail, fail_lines
from harness_cli.outcome import rerun_command
from harness_cli.progress import EvalView
from run_records import SUM_HEADER, RequestFailures, pct, size_mean

console = Console()
DEFAULTS = Requests()


def eval_cmd(
    policy: Annotated[
        str | None,
        typer.Option(
            help="A models.yaml alias (gpt, gemini, ...), llm:<litellm model>, or with "
            "--base-url the served model's name."
        ),
    ] = None,
    bench: Annotated[
        str, typer.Option(help="Comma-separated benchmark suites.")
    ] = "3agents,4agents,5agents",
    base_url: Annotated[
        str | None, typer.Option(help="An OpenAI-compatible server, e.g. http://host:8000/v1.")
    ] = None,
    api_key_env: Annotated[
        str | None,
        typer.Option(help="Name of the environment variable holding the API key (never the key)."),
    ] = None,
    checkpoint: Annotated[
        Path | None,
        typer.Option(help="A CPU learner checkpoint: runs/.../round-NNN/checkpoint."),
    ] = None,
    name: Annotated[
        str | None, typer.Option(help="The policy's name on boards (default: from --policy).")
    ] = None,
    samples: Annotated[
        int, typer.Option(min=1, help="Answers per instance for best-of-n (1: best-of = greedy).")
    ] = 1,
    temperature: Annotated[
        float | None, typer.Option(min=0.0, help="Sampling temperature (default: the provider's).")
    ] = None,
    max_tokens: Annotated[
        int | None, typer.Option(min=1, help="Completion token limit (default: the provider's).")
    ] = None,
    concurrency: Annotated[
        int, typer.Option(min=1, help="Requests in flight at once.")
    ] = DEFAULTS.concurrency,
    max_retries: Annotated[
        int, typer.Option(min=0, help="Retries of a rate-limited, 5xx or timed-out request.")
    ] = DEFAULTS.max_retries,
    timeout: Annotated[
        float,
        typer.Option(min=0.001, help="Seconds one attempt may take in all (a slow body too)."),
    ] = DEFAULTS.timeout_s,
    deadline: Annotated[
        float, typer.Option(min=0.001, help="Seconds one request may take, retries included.")
    ] = DEFAULTS.deadline_s,
    max_failures: Annotated[
        int, typer.Option(min=0, help="Stop once more requests than this failed after retries.")
    ] = DEFAULTS.max_failures,
    limit: Annotated[
        int | None,
        typer.Option(min=1, help="A stratified subset of N instances per suite (a quick look)."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the CPU learner's rollouts.")] = 0,
    out: OutOption = Path("runs"),
    quiet: QuietOption = False,
    as_json: JsonOption = False,
) -> None:
    """Evaluate an LLM (or a checkpoint) directly as a solver: `harness eval --policy gpt`.

    Answers are cached in runs/policies/<model>/answers.jsonl as they arrive, so rerunning an
    interrupted command asks only for the missing ones; the record is result.json beside it.
    """
    try:
        spec = resolve_policy(policy, base_url=base_url, api_key_env=api_key_env,
                              checkpoint=checkpoint, name=name)  # fmt: skip
        sampling = Sampling(temperature=temperature, max_tokens=max_tokens, samples=samples)
        limits = Requests(concurrency=concurrency, max_retries=max_retries, timeout_s=timeout,
                          deadline_s=deadline, max_failures=max_failures)  # fmt: skip
    except PolicyEvalError as err:
        raise fail(escape(str(err))) from None
    except ValidationError as err:
        first = err.errors()[0]
        raise fail(f"--{'-'.join(map(str, first['loc']))}: {first['msg']}") from None
    suites = [s.strip() for s in bench.split(",") if s.strip()]
    view = EvalView(console, quiet=quiet, as_json=as_json)
    try:
        with interrupts_raise(), view:
            outcome = evaluate_policy(spec, suites, sampling=sampling, requests=limits, out=out,
                                      limit=limit, seed=seed, on_event=view)  # fmt: skip
    except PolicyEvalError as err:
        raise fail(escape(str(err))) from None
    except KeyboardInterrupt as err:
        stop = as_interrupted(err)
        console.print(
            f"interrupted by {stop.signal_name}: the answers so far are saved under "
            f"{escape(str(policy_dir(out, spec)))}/; rerun the same command to ask only for "
            "the missing ones:",
            soft_wrap=True,
        )
        console.print(escape(rerun_command()), soft_wrap=True)
        raise typer.Exit(stop.exit_code) from None
    _report(outcome, as_json)
    failed = outcome.record.failed_requests
    if failed is not None and failed.all_failed:
        raise fail_lines([all_failed_line(outcome.record.designer, failed)], code=1)


def all_failed_line(policy: str, failed: RequestFailures) -> str:
    """Why a finished evaluation whose every request failed still exits non-zero."""
    return (
        f"policy {policy!r} never answered ({failed.summary}): its record measures the "
        "server, not the model, and boards will not rank it; fix the endpoint and rerun the "
        "same command"
    )


def _report(outcome: EvalOutcome, as_json: bool) -> None:
    record = outcome.record
    if as_json:
        suites = {name: {**size_mean(r)._asdict(),
                         **{f"best_of_{k}": v for k, v in size_mean(r, True)._asdict().items()},
                         "instances": len(r.verdicts)}
                  for name, r in record.suites.items()}  # fmt: skip
        print(json.dumps({"policy": record.designer, "backend": record.backend,
                          "result": str(outcome.path), "suites": suites,
                          "notes": list(record.notes)}))  # fmt: skip
        return
    n = record.experiment.best_of
    table = Table(title=f"{record.designer}: {SUM_HEADER} Sum (%), zero-shot")
    for column in ("suite", "instances", "greedy", f"best of {n}"):
        table.add_column(column, justify="right")
    for name, result in record.suites.items():
        table.add_row(name, str(len(result.verdicts)), size_mean(result).text(pct),
                      size_mean(result, best_of=True).text(pct))  # fmt: skip
    console.print(table)
    for note in record.notes:
        console.print(f"[dim]- {escape(note)}[/]")
    console.print(f"record written to {outcome.path}")
