"""`harness designers ...`: what designers are registered."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.table import Table

from designers import describe_designers

app = typer.Typer(
    help="Designers registered under the harness.designers entry points.", no_args_is_help=True
)
console = Console()


@app.command("list")
def list_cmd() -> None:
    """Every registered designer, built-in or plug-in, with its description."""
    table = Table(title="Designers (entry-point group harness.designers)")
    table.add_column("name", style="bold")
    table.add_column("description")
    for name, description in describe_designers().items():
        table.add_row(name, description)
    console.print(table)
    console.print("[dim]Also: llm:<any litellm model string>, e.g. llm:openai/gpt-4o[/]")
