"""`harness designers ...`: what designers are registered, and whether one keeps the contract."""

from __future__ import annotations

import contextlib
from typing import Annotated, Any

import typer
from rich.console import Console

from designers import (
    DesignerConformanceError,
    DesignerLoadError,
    UnknownDesigner,
    check_designer,
    create_designer,
    describe_designers,
    designer_tasks,
    sample_contexts,
)
from designers.registry import GROUP
from envdesign_common import InputError, load_yaml
from harness.designer_checks import DESIGNER_ERRORS
from harness_cli.common import fail, fail_lines, registered_table
from harness_cli.help_pages import App

app = App(
    help="Designers registered under the harness.designers entry points.", no_args_is_help=True
)
console = Console()


@app.command("list")
def list_cmd() -> None:
    """Every registered designer, built-in or plug-in, with the tasks it designs for and its
    description."""
    described = describe_designers()
    tasks = {}
    for name in described:
        with contextlib.suppress(DesignerLoadError, UnknownDesigner):  # shown broken already
            tasks[name] = designer_tasks(name)
    console.print(registered_table("Designers", GROUP, described, tasks))
    console.print("[dim]Also: llm:<any litellm model string>, e.g. llm:openai/gpt-4o[/]")


@app.command("check")
def check_cmd(
    entry: Annotated[str, typer.Argument(help="A designer entry: mine, gpt@V3, llm:openai/...")],
    option: Annotated[
        list[str] | None,
        typer.Option(
            "--option", "-o", help="A designer option as key=value (value read as YAML); repeat."
        ),
    ] = None,
    determinism: Annotated[
        bool,
        typer.Option(
            help="Check that the same context gives the same configuration; turn off for a "
            "designer that asks a model."
        ),
    ] = True,
) -> None:
    """Hold a designer to the contract the round loop relies on (`check_designer`), on the
    sample contexts: every broken rule is one line saying what was seen and how to fix it."""
    options = _options(option or [])
    try:
        designer = create_designer(entry, **options)
    except DESIGNER_ERRORS as err:
        raise fail_lines(str(err).splitlines() or [type(err).__name__]) from None
    contexts = sample_contexts()
    try:
        check_designer(designer, contexts, check_determinism=determinism)
    except DesignerConformanceError as err:
        raise fail_lines([str(problem) for problem in err.problems], code=1) from None
    except DESIGNER_ERRORS as err:  # not ready on this machine: a key, a served model
        raise fail(f"designer {entry!r}: {err}") from None
    console.print(f"designer {entry!r} keeps the designer contract on {len(contexts)} contexts")


def _options(pairs: list[str]) -> dict[str, Any]:
    """`key=value` pairs as designer options, each value read as YAML (safely)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise fail(f"--option {pair!r}: not key=value (e.g. --option temperature=0.2)")
        try:
            out[key.strip()] = load_yaml(raw)
        except InputError as err:
            raise fail(f"--option {key.strip()}: {err}") from None
    return out
