"""User- and model-written text prints as written in the compare table and progress lines.

A designer entry or a design failure is text from a person or a model; read as rich markup, a
name like `[link=file:///etc/passwd]x[/link]` would become a hyperlink (and `[/]` would break
the line). The table and every progress mode are rendered by rich into a string here, and the
text must come out literally, with no hyperlink escape sequence.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console
from rich.text import Text
from typer.testing import CliRunner

from designers import Proposal
from harness.events import RunEvent
from harness.executors import Job
from harness.policy_eval.events import EvalEvent
from harness_cli import app
from harness_cli.comparison import comparison
from harness_cli.progress import EvalView, ProgressView
from mapf_env import EnvConfig, EvalReport, GenerationStats
from run_records import ResultRecord, RoundResult
from tests.leaderboards.handmade import rates, run

NAME = "[link=file:///etc/passwd]x[/link]"
REASON = "[bold red]model said[/] [link=https://example.invalid]click[/link]"
OSC8 = "\x1b]8;"
"""How a terminal hyperlink starts: present only if markup was interpreted."""


class Screen:
    """A rich console writing into a string, with colours (and links, were any made)."""

    def __init__(self, terminal: bool) -> None:
        self.out = io.StringIO()
        self.console = Console(file=self.out, force_terminal=terminal, width=300,
                               color_system="truecolor")  # fmt: skip

    def text(self) -> str:
        """What a reader sees (styles dropped); asserts no hyperlink was made."""
        raw = self.out.getvalue()
        assert OSC8 not in raw, raw
        return Text.from_ansi(raw).plain


def _record_with_failed_design() -> ResultRecord:
    record = run(NAME, 0, rates({3: (4, 2, 1)})).record
    config = EnvConfig.uniform()
    proposal = Proposal(designer=NAME, config=config, kept_previous=True, failure_reason=REASON,
                        failures=(REASON,))  # fmt: skip
    rounds = tuple(
        RoundResult(round=i, config=config, stats=GenerationStats(sizes={}, total=0, seconds=0.0,
                    workers=1), validation=EvalReport(), proposal=p, train_seconds=0.1,
                    samples=10, epochs=1)
        for i, p in enumerate([proposal, None])
    )  # fmt: skip
    return record.model_copy(update={"rounds": rounds})


@pytest.mark.parametrize("terminal", [False, True])
def test_the_compare_table_prints_names_and_failure_reasons_literally(terminal: bool) -> None:
    screen = Screen(terminal)
    screen.console.print(comparison([_record_with_failed_design()]))
    text = screen.text()
    assert NAME in text
    assert "[bold red]model said[/]" in text and "[link=https://example.invalid]click" in text


def _events(designer: str) -> list[RunEvent]:
    design = RunEvent(designer, 0, "round", "design", 0, 1, valid_rate=0.5,
                      optimal=(("makespan", 0.25),),
                      design_failure=REASON)  # fmt: skip
    start = RunEvent(designer, 0, "phase", "generate", 0, 1)
    return [start, design, RunEvent(designer, 0, "phase", "done", 1, 1)]


@pytest.mark.parametrize("terminal", [False, True])
def test_progress_lines_and_bars_print_the_designer_literally(terminal: bool) -> None:
    screen = Screen(terminal)
    with ProgressView(screen.console, [Job(NAME, 0)], 1) as view:
        for event in _events(NAME):
            view(event)
    text = screen.text()
    assert f"{NAME} seed 0" in text
    if not terminal:  # the plain line carries the round's design failure too
        assert f"design failed: {REASON}" in text


@pytest.mark.parametrize("terminal", [False, True])
def test_evaluation_progress_prints_the_suite_literally(terminal: bool) -> None:
    screen = Screen(terminal)
    with EvalView(screen.console) as view:
        view(EvalEvent(kind="suite", suite=NAME, done=3, total=3, valid=3))
    assert f"{NAME}: 3 instances" in screen.text() if not terminal else NAME in screen.text()


def test_a_wrong_field_echoed_by_compare_prints_literally(tmp_path: Path) -> None:
    args = ["compare", "--designers", "random", "--seeds", "1", "--set", f'rounds="{NAME}"',
            "--out", str(tmp_path), "--dry-run"]  # fmt: skip
    result = CliRunner().invoke(app, args, env={"COLUMNS": "300"})
    assert result.exit_code == 2
    assert f"(got '{NAME}')" in result.output, result.output
