"""`--help` pages that read whole at any width: 80 columns (logs, CI, pipes) as on a wide terminal.

Typer's own Rich pages put the options in a table that Rich shrinks to fit: at 80 columns it cut
option names (`--allow-design-failur…`), defaults and long words of the help with an ellipsis,
broke docstrings where their source lines broke, read `[default: ...]` in a help string as
markup (and dropped it), and showed a type (`<bool>`) after every switch, as if the switch took
a value. Here each parameter is named as click names it -- `--seeds <int>` for an option that
takes a value, `--resume / --no-resume` or `--json` alone for a switch -- in a column that is
never shrunk; help wraps at spaces only (a word wider than its column folds onto the next line,
nothing is cut), paragraphs are reflowed, a group lists each command's whole summary, and every
string prints as written. `App` is a `typer.Typer` whose groups and commands all print this way.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.text import Text
from typer.core import TyperCommand, TyperGroup
from typer.models import CommandFunctionType

if TYPE_CHECKING:  # the types typer's command classes are written against
    from typer._click import Command, Context, HelpFormatter

INDENT = 2
"""Where help text and the names under a heading start."""
GAP = 2
"""Between a name and its help."""
NAMES_MAX = 30
"""The widest names' column; a longer name gets a line of its own, its help under it, as click
lays it out. On a console too narrow to leave `HELP_MIN` beside it, the column is narrower."""
HELP_MIN = 40
NAME_STYLE = "bold cyan"
HEADING_STYLE = "bold"


def paragraphs(text: str) -> list[str]:
    """The paragraphs of a docstring or help string, each on one line for the console to wrap;
    a paragraph that starts with click's `\\b` marker keeps its lines as written."""
    kept = []
    for block in inspect.cleandoc(text).partition("\f")[0].split("\n\n"):
        if block.startswith("\b"):
            kept.append(block.removeprefix("\b").strip("\n"))
        else:
            kept.append(" ".join(line.strip() for line in block.splitlines()))
    return [p for p in kept if p.strip()]


def _deprecated(command: Command) -> str | None:
    """Click's mark for a deprecated command, said where its help is."""
    if not command.deprecated:
        return None
    return f"(DEPRECATED: {command.deprecated})" if isinstance(command.deprecated, str) \
        else "(DEPRECATED)"  # fmt: skip


def summary(command: Command) -> str:
    """What a group says of `command`: its short help, else its help's first paragraph, whole."""
    text = command.short_help or next(iter(paragraphs(command.help or "")), "")
    return " ".join(filter(None, [inspect.cleandoc(text), _deprecated(command)]))


def wrapped(text: str, console: Console, indent: int) -> list[Text]:
    """`text` wrapped at spaces to the console's width after `indent` spaces (a word wider than
    that folds onto the next line: nothing is cut), with no trailing spaces; none for ''."""
    if not text:
        return []
    width = max(1, console.width - indent)
    return [_rstripped(Text(" " * indent) + line)
            for line in Text(text).wrap(console, width, overflow="fold")]  # fmt: skip


def _rstripped(line: Text) -> Text:
    line.rstrip()
    return line


def definitions(rows: Sequence[tuple[str, str]], console: Console) -> list[Text]:
    """Names and their help in two aligned columns, indented by `INDENT`."""
    room = console.width - INDENT - GAP - HELP_MIN
    column = min(max(10, min(NAMES_MAX, room)), max(len(name) for name, _ in rows))
    lines: list[Text] = []
    for name, text in rows:
        named = Text.assemble(" " * INDENT, (name, NAME_STYLE))
        described = wrapped(text, console, INDENT + column + GAP)
        if len(name) > column:  # on a line of its own; its help under it, in the help column
            lines += [named, *described]
            continue
        if described:
            named.append(" " * (column + GAP - len(name)))
            named.append_text(described[0][INDENT + column + GAP :])
        lines += [named, *described[1:]]
    return lines


def help_page(command: Command, ctx: Context, console: Console) -> list[list[Text]]:
    """The sections of `command`'s help page, in order: usage, the help's paragraphs,
    arguments, options, commands (of a group) and the epilog's paragraphs; each a list of
    lines that fit the console's width."""
    usage = " ".join([ctx.command_path, *command.collect_usage_pieces(ctx)])
    sections = [[Text.assemble(("Usage: ", HEADING_STYLE), usage)]]
    text = [*paragraphs(command.help or ""), *filter(None, [_deprecated(command)])]
    sections += [wrapped(p, console, INDENT) for p in text]
    for kind, heading in (("argument", "Arguments:"), ("option", "Options:")):
        rows = [record for param in command.get_params(ctx) if param.param_type_name == kind
                if (record := param.get_help_record(ctx)) is not None]  # fmt: skip
        if rows:
            sections.append([Text(heading, style=HEADING_STYLE), *definitions(rows, console)])
    if isinstance(command, TyperGroup):
        subs = [(name, command.get_command(ctx, name)) for name in command.list_commands(ctx)]
        rows = [(name, summary(sub)) for name, sub in subs if sub is not None and not sub.hidden]
        if rows:
            sections.append([Text("Commands:", style=HEADING_STYLE), *definitions(rows, console)])
    sections += [wrapped(p, console, INDENT) for p in paragraphs(command.epilog or "")]
    return sections


def print_help(command: Command, ctx: Context) -> None:
    """Print `command`'s help page to stdout, a blank line between sections. Printed, not
    returned through click's formatter, as typer prints its Rich pages: a group run without
    arguments shows its page the same way."""
    console = Console(highlight=False)
    for i, section in enumerate(help_page(command, ctx, console)):
        if i:
            console.print()
        for line in section:
            console.print(line)


class HelpCommand(TyperCommand):
    """A typer command whose `--help` is `print_help`'s page."""

    def format_help(self, ctx: Context, formatter: HelpFormatter) -> None:
        print_help(self, ctx)


class HelpGroup(TyperGroup):
    """A typer group whose `--help` (and bare invocation) is `print_help`'s page."""

    def format_help(self, ctx: Context, formatter: HelpFormatter) -> None:
        print_help(self, ctx)


class App(typer.Typer):
    """A `typer.Typer` whose group and every command it registers print `print_help`'s pages."""

    def __init__(self, **settings: Any) -> None:
        super().__init__(cls=HelpGroup, **settings)

    def command(
        self, name: str | None = None, *, cls: type[TyperCommand] | None = None, **settings: Any
    ) -> Callable[[CommandFunctionType], CommandFunctionType]:
        return super().command(name, cls=cls or HelpCommand, **settings)
