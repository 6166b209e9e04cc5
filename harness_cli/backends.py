"""`harness backends ...`: what backends are registered."""

from __future__ import annotations

import contextlib

from rich.console import Console

from harness.backends.base import BackendUnavailable
from harness.backends.registry import BACKENDS, GROUP, describe_backends
from harness_cli.common import registered_table
from harness_cli.help_pages import App

app = App(help="Backends registered under the harness.backends entry points.", no_args_is_help=True)
console = Console()


@app.command("list")
def list_cmd() -> None:
    """Every registered backend, built-in or plug-in, with the tasks it trains and its
    description."""
    described = describe_backends()
    tasks = {}
    for name in described:
        with contextlib.suppress(BackendUnavailable):  # shown broken already
            tasks[name] = BACKENDS.load(name).tasks
    console.print(registered_table("Backends", GROUP, described, tasks))
