"""Entry point of the `harness` console script."""

from __future__ import annotations

import io
import sys
from typing import Annotated

import typer

from envdesign_common import git_commit, package_version
from harness_cli.backends import app as backends_app
from harness_cli.common import Debug
from harness_cli.designers import app as designers_app
from harness_cli.doctor import doctor_cmd
from harness_cli.env import app as env_app
from harness_cli.eval import eval_cmd
from harness_cli.help_pages import App
from harness_cli.leaderboard import app as leaderboard_app
from harness_cli.run import compare_cmd, run_cmd
from harness_cli.runs import app as runs_app
from harness_cli.tasks import app as tasks_app

app = App(
    name="harness",
    help="Compare training-environment designers on MAPF-FrozenLake.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)
app.add_typer(env_app, name="env")
app.add_typer(designers_app, name="designers")
app.add_typer(backends_app, name="backends")
app.add_typer(tasks_app, name="tasks")
app.add_typer(runs_app, name="runs")
app.add_typer(leaderboard_app, name="leaderboard")
app.command("run")(run_cmd)
app.command("compare")(compare_cmd)
app.command("eval")(eval_cmd)
app.command("doctor")(doctor_cmd)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"envdesign-bench {package_version()} ({git_commit()})")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print and exit."),
    ] = False,
    debug: Annotated[
        bool,
        typer.Option("--debug", help="Print tracebacks of failed runs, not only their logs."),
    ] = False,
) -> None:
    """Compare training-environment designers on MAPF-FrozenLake."""
    Debug.on = debug


def tolerate_any_encoding() -> None:
    """Let stdout and stderr print what they cannot encode as `?` rather than raise.

    Under a POSIX locale without UTF-8 mode Python writes ASCII, and a board mark or a
    designer's name would end the command with `UnicodeEncodeError` halfway through its output;
    whether a command works must not depend on the terminal's encoding. A UTF stream is left as
    it is."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and not _is_utf(stream.encoding):
            stream.reconfigure(errors="replace")


def _is_utf(encoding: str) -> bool:
    return encoding.lower().replace("-", "").replace("_", "").startswith("utf")


def main() -> None:
    tolerate_any_encoding()
    app()
