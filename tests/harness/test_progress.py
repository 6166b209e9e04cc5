"""Progress events from a real run, and how the terminal shows them in each mode."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from harness.backends.factory import make_backend
from harness.events import EventSender, RunEvent
from harness.executors import Job
from harness.loop import run_designer
from harness.run_dir import RunDir
from harness_cli.progress import ProgressView
from tests.harness.test_loop import tiny


@pytest.fixture(scope="module")
def events(tmp_path_factory: pytest.TempPathFactory) -> list[RunEvent]:
    """Every event of a two-round run, in order."""
    experiment, seen = tiny(rounds=2), []
    root = tmp_path_factory.mktemp("progress")
    sender = EventSender(seen.append, "random", 0, experiment.rounds)
    run_designer(experiment, "random", 0, make_backend(experiment, threads=1),
                 RunDir(root, experiment, "random", 0), observers=[sender], workers=1)  # fmt: skip
    return seen


def test_a_run_reports_its_phases_steps_and_rounds_in_order(events: list[RunEvent]) -> None:
    phases = [(e.phase, e.round) for e in events if e.kind == "phase"]
    assert phases == [("generate", 0), ("train", 0), ("evaluate", 0), ("design", 0),
                      ("generate", 1), ("train", 1), ("evaluate", 1),
                      ("benchmark", 2), ("done", 2)]  # fmt: skip
    steps = [e for e in events if e.kind == "step"]
    assert steps and all(e.valid_rate is not None and 0 <= e.valid_rate <= 1 for e in steps)
    rounds = [e for e in events if e.kind == "round"]
    assert [e.round for e in rounds] == [0, 1]
    assert all([kind for kind, _ in e.optimal] == ["makespan", "SOC"] for e in rounds)
    assert all(rate is not None and rate <= (e.valid_rate or 0) for e in rounds
               for _, rate in e.optimal)  # fmt: skip


def view_output(events: list[RunEvent], *, terminal: bool, **mode: bool) -> str:
    out = io.StringIO()
    console = Console(file=out, force_terminal=terminal, width=160)
    with ProgressView(console, [Job("random", 0)], 2, **mode) as view:
        for event in events:
            view(event)
    return out.getvalue()


def test_json_mode_prints_one_parsable_line_per_event(
    events: list[RunEvent], capsys: pytest.CaptureFixture[str]
) -> None:
    view_output(events, terminal=False, as_json=True)
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(lines) == len(events)
    assert lines[-1] == {"event": "phase", "designer": "random", "seed": 0, "kind": "phase",
                         "phase": "done", "round": 2, "rounds": 2}  # fmt: skip


def test_plain_output_is_a_line_per_round_and_quiet_prints_nothing(
    events: list[RunEvent],
) -> None:
    plain = view_output(events, terminal=False).splitlines()
    assert len(plain) == 2 and plain[1].startswith("random seed 0 round 2/2: validation valid")
    assert view_output(events, terminal=False, quiet=True) == ""


def test_bars_show_the_live_valid_rate_and_finish(events: list[RunEvent]) -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=160)
    first_step = next(i for i, e in enumerate(events) if e.kind == "step")
    with ProgressView(console, [Job("random", 0)], 2) as view:
        for event in events[: first_step + 1]:
            view(event)
        (task,) = view.progress.tasks
        rate = events[first_step].valid_rate or 0.0
        assert task.fields["status"] == f"round 1/2 train · rollouts {100 * rate:.1f}% valid"
        for event in events[first_step + 1 :]:
            view(event)
        assert task.finished
    last_frame = out.getvalue().split("\r")[-1]
    assert "random seed 0" in last_frame and "done · validation valid" in last_frame
