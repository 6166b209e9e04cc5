"""The context modules of the paper's designer: F, G, H, S and T, each a small renderer.

Each `render_X(ctx, ...)` turns one part of a `DesignContext` into one Markdown section of the
analysis prompt, or "" when there is nothing to show (so a variant never prints an empty
heading). Headings and lead-in prose live in ``prompts/`` as package data; the code only lays
out numbers, so the wording can be reviewed -- and golden-tested -- without reading Python.
Numbers are formatted deterministically so the same context gives byte-identical prompts.
What a module shows of the configuration, the generator and the validation report is the
task's own text (`Task.describe_config`, `describe_stats`, `describe_report`,
`report_headline`): MAPF-FrozenLake's is the paper's, and any task's modules read alike.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from string import Template
from typing import Any

from pydantic import BaseModel

from designers.context import DesignContext
from tasks import Task, family_of

PAPER_FAMILY = "mapf-frozenlake"
"""The task the paper's prompts were written for."""


@cache
def load_prompt(name: str) -> str:
    """The text of ``prompts/<name>``, shipped as package data."""
    return files("designers.llm").joinpath("prompts", name).read_text(encoding="utf-8")


def fill(name: str, **values: object) -> str:
    """Fill a prompt template; `$`-placeholders, so YAML braces in the text need no escaping."""
    return Template(load_prompt(name)).substitute({k: str(v) for k, v in values.items()})


def paper_task(ctx: DesignContext) -> bool:
    """Whether `ctx` is of MAPF-FrozenLake, whose prompts are the paper's own."""
    return family_of(ctx.design_task().id)[0] == PAPER_FAMILY


def prompt_file(ctx: DesignContext, name: str) -> str:
    """The prompt `name` for `ctx`'s task: the paper's (``prompts/<name>``) for MAPF-FrozenLake,
    the general one (``prompts/any_task/<name>``) for any other task."""
    return name if paper_task(ctx) else f"any_task/{name}"


def _section(template: str, body: str) -> str:
    return fill(template, body=body.rstrip()).rstrip() + "\n" if body.strip() else ""


def render_failures(ctx: DesignContext) -> str:
    """F: the latest validation breakdown and the generator's achieved statistics, in the
    task's words (`Task.describe_report`, `Task.describe_stats`)."""
    task, parts = ctx.design_task(), []
    if ctx.validation is not None:
        parts.append(task.describe_report(ctx.validation))
    if ctx.stats is not None:
        parts.append(task.describe_stats(ctx.stats))
    return _section("modules/failures.md", "\n\n".join(parts))


def render_guidelines(ctx: DesignContext) -> str:
    """G: the guidelines -- the paper's for MAPF-FrozenLake (easy-to-hard, keep all sizes,
    fixed budget), the general ones for any other task."""
    return load_prompt(prompt_file(ctx, "guidelines.md")).rstrip() + "\n"


def _history_entry(
    task: Task[Any, Any], round_: int, config: BaseModel, validation: BaseModel | None
) -> str:
    lines = [f"### Round {round_}", "Configuration:", task.describe_config(config)]
    if validation is not None:
        lines.append(task.report_headline(validation))
    return "\n".join(lines)


def render_history(ctx: DesignContext, *, include_default: bool = False) -> str:
    """H: earlier rounds' (configuration, failures), oldest first.

    The paper found that leaving out round 0's default configuration helps (V4 over V3): the
    random start anchors the model on a configuration nobody chose. `include_default` keeps it.
    """
    rounds = [(r.round, r.config, r.validation) for r in ctx.history
              if include_default or r.round != 0]  # fmt: skip
    if include_default and ctx.round > 0 and not any(r.round == 0 for r in ctx.history):
        rounds.insert(0, (0, ctx.initial_config, None))
    task = ctx.design_task()
    entries = (_history_entry(task, *entry) for entry in rounds)
    return _section("modules/history.md", "\n\n".join(entries))


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
