"""`harness backends ...`: what backends are registered."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.table import Table

from harness.backends.registry import describe_backends

app = typer.Typer(
    help="Backends registered under the harness.backends entry points.", no_args_is_help=True
)
console = Console()


@app.command("list")
def list_cmd() -> None:
    """Every registered backend, built-in or plug-in, with its description."""
    table = Table(title="Backends (entry-point group harness.backends)")
    table.add_column("name", style="bold")
    table.add_column("description")
    for name, description in describe_backends().items():
        table.add_row(name, description)
    console.print(table)
