"""Every `--help` page reads whole at 80 columns (logs, CI, pipes) and on a wide terminal.

Each command of the tree, groups included, is asked for its help through the real CLI with
its output piped (not a terminal) at COLUMNS=80: every option name is there whole, a switch
has no value placeholder (`--json`, not `--json <bool>`) while an option that takes a value
shows its own (`--seeds <int>`), every word of every help string is there as written (no
ellipsis, no word broken at a hyphen, no `[default: ...]` read as markup and dropped), and no
line is wider than 80 columns. On a wide terminal a help string stays on one line.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from typer.core import TyperGroup
from typer.main import get_command
from typer.testing import CliRunner

from harness_cli import app
from harness_cli.common import AllowDesignFailuresOption
from harness_cli.help_pages import HelpCommand, HelpGroup, paragraphs

runner = CliRunner()


def _tree() -> dict[str, Any]:
    """Every command of `harness` (its click command) by its words after `harness`."""
    found: dict[str, Any] = {}

    def walk(path: str, command: Any) -> None:
        found[path] = command
        if isinstance(command, TyperGroup):
            for name, sub in command.commands.items():
                walk(f"{path} {name}".strip(), sub)

    walk("", get_command(app))
    return found


TREE = _tree()


def _words(text: str | None) -> set[str]:
    return {word for p in paragraphs(text or "") for word in p.split()}


def test_every_command_prints_its_help_this_way() -> None:
    assert {"", "compare", "runs show", "env generate", "leaderboard merge"} <= set(TREE)
    for path, command in TREE.items():
        assert isinstance(command, HelpCommand | HelpGroup), (path, type(command))


@pytest.mark.parametrize("path", list(TREE), ids=lambda p: p or "harness")
def test_help_reads_whole_at_80_columns(path: str) -> None:
    command = TREE[path]
    shown = runner.invoke(app, [*path.split(), "--help"], env={"COLUMNS": "80"})
    assert shown.exit_code == 0, shown.output
    text, lines = shown.output, shown.output.splitlines()
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    assert all(line == line.rstrip() for line in lines), "trailing spaces"
    assert "…" not in text and "<bool>" not in text, text
    assert re.search(r"(?m)^  --help +Show this message and exit\.$", text), text
    words = set(text.split())
    for param in command.params:
        if param.hidden:
            continue
        for name in [*param.opts, *getattr(param, "secondary_opts", [])]:
            if name.startswith("-"):  # whole, not cut and not broken at a hyphen
                assert re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text), (name, text)
        if param.param_type_name == "option" and param.is_flag:  # a switch: no placeholder
            assert not re.search(rf"{re.escape(param.opts[0])} <", text), (param.opts, text)
        elif param.param_type_name == "option":  # takes a value: says which kind
            assert re.search(rf"{re.escape(param.opts[0])} <\w", text), (param.opts, text)
        assert _words(param.help) <= words, (param.opts, _words(param.help) - words, text)
    assert _words(command.help) <= words, (_words(command.help) - words, text)
    for sub in getattr(command, "commands", {}).values():  # a group's summary of each, whole
        summary = next(iter(paragraphs(sub.help or "")), "")
        assert set(summary.split()) <= words, (sub.name, set(summary.split()) - words, text)


def test_a_wide_terminal_keeps_each_help_on_one_line() -> None:
    shown = runner.invoke(app, ["compare", "--help"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    allow = AllowDesignFailuresOption.__metadata__[0].help
    assert any(line.strip() == f"--allow-design-failures  {allow}"
               for line in shown.output.splitlines()), shown.output  # fmt: skip
    assert re.search(r"(?m)^  --seeds <int> +Seeds 0\.\.N-1; default: the preset's seeds\.$",
                     shown.output), shown.output  # fmt: skip
    assert re.search(r"(?m)^  --resume / --no-resume +Continue runs", shown.output)
