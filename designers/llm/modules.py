"""The context modules of the paper's designer: F, G, H, S and T, each a small renderer.

Each `render_X(ctx, ...)` turns one part of a `DesignContext` into one Markdown section of the
analysis prompt, or "" when there is nothing to show (so a variant never prints an empty
heading). Headings and lead-in prose live in ``prompts/`` as package data; the code only lays
out numbers, so the wording can be reviewed -- and golden-tested -- without reading Python.
Numbers are formatted deterministically so the same context gives byte-identical prompts.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib.resources import files
from string import Template

from designers.context import DesignContext, RoundRecord
from mapf_env.instance import size_name
from mapf_env.report import FAILURE_TYPES, EvalReport, RateCounts
from tasks.mapf_frozenlake.describe import compact_config, stats_lines


@cache
def load_prompt(name: str) -> str:
    """The text of ``prompts/<name>``, shipped as package data."""
    return files("designers.llm").joinpath("prompts", name).read_text(encoding="utf-8")


def fill(name: str, **values: object) -> str:
    """Fill a prompt template; `$`-placeholders, so YAML braces in the text need no escaping."""
    return Template(load_prompt(name)).substitute({k: str(v) for k, v in values.items()})


def _section(template: str, body: str) -> str:
    return fill(template, body=body.rstrip()).rstrip() + "\n" if body.strip() else ""


def _pct(num: int, den: int) -> str:
    return f"{100 * num / den:.1f}%" if den else "n/a"


def _optimal_columns(report: EvalReport) -> list[tuple[str, Callable[[RateCounts], int]]]:
    """The optimal counts a report can show: both exact optima where every answer had them
    (the paper's "optimal" is the makespan one), else the answer key's own objective."""
    if report.overall.optimal_makespan is None or report.overall.optimal_soc is None:
        return [("optimal", lambda rc: rc.optimal)]
    return [
        ("optimal makespan", lambda rc: rc.optimal_makespan or 0),
        ("optimal SOC", lambda rc: rc.optimal_soc or 0),
    ]


def report_table(report: EvalReport) -> str:
    """Overall and per-size valid/optimal rates plus failure counts, as Markdown."""
    o, columns = report.overall, _optimal_columns(report)
    overall = ", ".join(
        [f"{o.valid}/{o.n} valid ({_pct(o.valid, o.n)})"]
        + [f"{count(o)}/{o.n} {name} ({_pct(count(o), o.n)})" for name, count in columns]
    )
    names = " | ".join(name for name, _ in columns)
    lines = [
        f"Overall: {overall}.",
        "",
        f"| size | n | valid | {names} | main failures |",
        "|---|---|---|" + "---|" * len(columns) + "---|",
    ]
    for size, rc in sorted(report.per_size.items()):
        fails = report.per_size_failures.get(size, {})
        top = ", ".join(f"{k} {v}" for k, v in sorted(fails.items(), key=lambda kv: -kv[1]) if v)
        rates = " | ".join(_pct(count(rc), rc.n) for _, count in columns)
        lines.append(
            f"| {size_name(size)} | {rc.n} | {_pct(rc.valid, rc.n)} | {rates} | {top or '-'} |"
        )
    counts = ", ".join(f"{k} {report.failures.get(k, 0)}" for k in FAILURE_TYPES)
    lines += ["", f"Failures by type (first failing check): {counts}."]
    return "\n".join(lines)


def render_failures(ctx: DesignContext) -> str:
    """F: the latest validation breakdown and the generator's achieved statistics."""
    parts = []
    if ctx.validation is not None:
        parts.append(report_table(ctx.validation))
    if ctx.stats is not None:
        parts.append(stats_lines(ctx.stats))
    return _section("modules/failures.md", "\n\n".join(parts))


def render_guidelines(ctx: DesignContext) -> str:
    """G: the task guidelines (easy-to-hard, keep all sizes, fixed budget)."""
    return load_prompt("guidelines.md").rstrip() + "\n"


def _history_entry(record: RoundRecord) -> str:
    lines = [f"### Round {record.round}", "Configuration:", compact_config(record.config)]
    if record.validation is not None:
        o = record.validation.overall
        optimal = ", ".join(
            f"{name} {_pct(count(o), o.n)}" for name, count in _optimal_columns(record.validation)
        )
        lines.append(f"Result: valid {_pct(o.valid, o.n)}, {optimal}.")
        worst = sorted(record.validation.failures.items(), key=lambda kv: -kv[1])
        top = ", ".join(f"{k} {v}" for k, v in worst if v)
        lines.append(f"Failures: {top or 'none'}.")
    return "\n".join(lines)


def render_history(ctx: DesignContext, *, include_default: bool = False) -> str:
    """H: earlier rounds' (configuration, failures), oldest first.

    The paper found that leaving out round 0's default configuration helps (V4 over V3): the
    random start anchors the model on a configuration nobody chose. `include_default` keeps it.
    """
    records = [r for r in ctx.history if include_default or r.round != 0]
    if include_default and ctx.round > 0 and not any(r.round == 0 for r in ctx.history):
        records.insert(0, RoundRecord(round=0, config=ctx.initial_config))
    return _section("modules/history.md", "\n\n".join(_history_entry(r) for r in records))


def render_summary(ctx: DesignContext) -> str:
    """S: the designer's own summary of the previous round, if it wrote one."""
    latest = next((r.summary for r in reversed(ctx.history) if r.summary), None)
    return _section("modules/summary.md", latest or "")


def render_training(ctx: DesignContext, *, details: bool = False) -> str:
    """T: training bookkeeping (round and epoch); full RL details only when asked.

    Bookkeeping-only T beat full details in the paper's ablation, so details are opt-in.
    """
    t = ctx.training
    lines = [
        f"- finished round: {ctx.round} of {ctx.total_rounds}",
        f"- RL epochs trained this round: {t.epochs}",
    ]
    if details:
        lines.append(f"- training samples: {t.samples}")
        lines += [f"- {key}: {value:.6g}" for key, value in sorted(t.details.items())]
    return _section("modules/training.md", "\n".join(lines))
