"""`harness designers ...`: what designers are registered."""

from __future__ import annotations

from rich.console import Console

from designers import describe_designers
from designers.registry import GROUP
from harness_cli.common import registered_table
from harness_cli.help_pages import App

app = App(
    help="Designers registered under the harness.designers entry points.", no_args_is_help=True
)
console = Console()


@app.command("list")
def list_cmd() -> None:
    """Every registered designer, built-in or plug-in, with its description."""
    console.print(registered_table("Designers", GROUP, describe_designers()))
    console.print("[dim]Also: llm:<any litellm model string>, e.g. llm:openai/gpt-4o[/]")
