"""Entry point of the `harness` console script."""

from __future__ import annotations

import typer

from harness.cli.env import app as env_app

app = typer.Typer(
    name="harness",
    help="Compare training-environment designers on MAPF-FrozenLake.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)
app.add_typer(env_app, name="env")


def main() -> None:
    app()
