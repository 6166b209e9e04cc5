"""`harness backends ...`: what backends are registered."""

from __future__ import annotations

from rich.console import Console

from harness.backends.registry import GROUP, describe_backends
from harness_cli.common import registered_table
from harness_cli.help_pages import App

app = App(help="Backends registered under the harness.backends entry points.", no_args_is_help=True)
console = Console()


@app.command("list")
def list_cmd() -> None:
    """Every registered backend, built-in or plug-in, with its description."""
    console.print(registered_table("Backends", GROUP, describe_backends()))
