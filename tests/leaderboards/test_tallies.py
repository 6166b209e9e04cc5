"""A board never shows a count its record's own verdicts contradict.

A real run's result.json is edited the way a person (or a damaged disk) would: one digit of a
per-size count, an optimal count above the valid one, an overall or failure count, a verdict
that is optimal while invalid. Each is refused in one line naming the run, the suite, the size
and the field, as `harness leaderboard show` refuses every other bad run; the untouched record
reads, and its counts are exactly what its verdicts fold into.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness_cli import app
from leaderboards import LeaderboardError, load_runs
from run_records import COUNT_FIELDS, read_result, tally_problem, verdict_reports
from tests.leaderboards.handmade import rates, run

SUITE, SIZE = "3agents", "5"
OPTIMA = ("optimal", "optimal_soc", "optimal_makespan")
Edit = Callable[[dict[str, Any]], Any]


def _one_run(compare_root: Path, tmp_path: Path) -> Path:
    """A copy of one real run's result.json, as its own run directory."""
    target = tmp_path / "runs" / "random" / "seed-0"
    target.mkdir(parents=True)
    shutil.copy(compare_root / "quick" / "random" / "seed-0" / "result.json", target)
    return target


def _edit(run_dir: Path, change: Edit) -> None:
    path = run_dir / "result.json"
    data = json.loads(path.read_text())
    change(data["suites"][SUITE])
    path.write_text(json.dumps(data))


def _refused(run_dir: Path, *parts: str) -> str:
    """The run's one skipped line, which must name each of `parts`; strict refuses it too."""
    loaded = load_runs([run_dir])
    assert not loaded.runs
    (skipped,) = loaded.skipped
    assert skipped.kind == "unreadable" and "\n" not in skipped.line
    assert len(skipped.line) < 500, skipped.line
    for part in (str(run_dir), f"suite {SUITE} in result.json", *parts):
        assert part in skipped.line, skipped.line
    with pytest.raises(LeaderboardError, match="edited or damaged"):
        load_runs([run_dir], strict=True)
    return skipped.line


def _other_digit(value: int) -> int:
    """`value` with its last digit changed: the smallest edit a hand makes."""
    text = str(value)
    return int(text[:-1] + str((int(text[-1]) + 1) % 10))


ANSWERS = ("greedy", "best_of")
PER_SIZE_EDITS = [(a, f, "one digit") for a in ANSWERS for f in COUNT_FIELDS] + [
    (a, f, "above valid") for a in ANSWERS for f in OPTIMA
]
"""Every count of a size, greedy and best-of, with one digit changed; and each optimal count
set one above the valid count."""


@pytest.mark.parametrize(("answers", "field", "how"), PER_SIZE_EDITS)
def test_a_per_size_count_its_verdicts_do_not_give_is_refused(
    compare_root: Path, tmp_path: Path, answers: str, field: str, how: str
) -> None:
    run_dir = _one_run(compare_root, tmp_path)
    counts = json.loads((run_dir / "result.json").read_text())["suites"][SUITE][answers]
    mine = counts["per_size"][SIZE]
    edited = _other_digit(mine[field]) if how == "one digit" else mine["valid"] + 1
    _edit(run_dir, lambda s: s[answers]["per_size"][SIZE].update({field: edited}))
    said = f"size {SIZE} {answers} {field} is {edited}"
    _refused(run_dir, said, "above valid" if how == "above valid" else "verdicts give")


def _bump(*keys: str) -> Edit:
    def change(suite: dict[str, Any]) -> None:
        node = suite
        for key in keys[:-1]:
            node = node[key]
        node[keys[-1]] += 1

    return change


def _invalid_but_optimal(suite: dict[str, Any]) -> None:
    verdict = next(v for v in suite["verdicts"] if not v["valid"] and v["size"] == int(SIZE))
    verdict["optimal_makespan"] = True


def _size_dropped(suite: dict[str, Any]) -> None:
    del suite["greedy"]["per_size"][SIZE]


EDITS: dict[str, tuple[Edit, str]] = {
    "overall valid": (_bump("greedy", "overall", "valid"), "overall greedy valid is"),
    "overall best-of makespan": (
        _bump("best_of", "overall", "optimal_makespan"),
        "overall best_of optimal_makespan is",
    ),
    "failures": (_bump("greedy", "failures", "conflict"), "overall greedy failures[conflict]"),
    "per-size failures": (
        _bump("greedy", "per_size_failures", SIZE, "parse"),
        f"size {SIZE} greedy failures[parse]",
    ),
    "invalid yet optimal": (_invalid_but_optimal, "greedy optimal_makespan is true on an invalid"),
    "size dropped": (_size_dropped, "greedy sizes are 3,4,6,7,8,9,10 but"),
}


@pytest.mark.parametrize("name", list(EDITS))
def test_other_counts_and_self_contradicting_verdicts_are_refused(
    compare_root: Path, tmp_path: Path, name: str
) -> None:
    change, expected = EDITS[name]
    run_dir = _one_run(compare_root, tmp_path)
    _edit(run_dir, change)
    _refused(run_dir, expected)


def test_a_hostile_verdict_id_is_not_echoed_whole(compare_root: Path, tmp_path: Path) -> None:
    run_dir = _one_run(compare_root, tmp_path)

    def hostile(suite: dict[str, Any]) -> None:
        verdict = next(v for v in suite["verdicts"] if not v["valid"])
        verdict.update(id="[link=file:///etc/passwd]" + "x" * 1_000_000, best_of_optimal=True)
        verdict["best_of_valid"] = False

    _edit(run_dir, hostile)
    line = _refused(run_dir, "best_of best_of_optimal is true on an invalid answer")
    assert "x" * 100 not in line


def test_untouched_records_read_and_their_counts_are_their_verdicts_fold(
    compare_root: Path, tmp_path: Path
) -> None:
    runs = load_runs([compare_root])
    assert len(runs) == 4 and not runs.skipped
    record = read_result(compare_root / "quick" / "uniform" / "seed-1" / "result.json")
    for suite in record.suites.values():
        assert tally_problem(suite) is None
        folded = verdict_reports(suite.verdicts)
        assert folded["greedy"] == suite.greedy
        assert folded["best_of"].per_size == suite.best_of.per_size
        assert folded["best_of"].overall == suite.best_of.overall
    # hand-made records (makespan flags given or taken from the SOC ones) read back consistent
    for answers in (rates({3: (4, 2, 1), 4: (4, 3, 0)}), rates({3: (4, 2, 1, 1)})):
        hand = run("hand", 0, answers).record
        path = tmp_path / f"hand-{len(answers)}" / "result.json"
        path.parent.mkdir()
        path.write_text(hand.model_dump_json())
        assert len(load_runs([path.parent])) == 1


def test_the_cli_skips_an_edited_run_or_refuses_it_with_strict(
    compare_root: Path, tmp_path: Path
) -> None:
    root = tmp_path / "runs"
    shutil.copytree(compare_root, root, ignore=shutil.ignore_patterns("checkpoint"))
    run_dir = root / "quick" / "random" / "seed-0"
    valid = json.loads((run_dir / "result.json").read_text())["suites"][SUITE]["greedy"]
    edited = _other_digit(valid["per_size"][SIZE]["valid"])
    _edit(run_dir, lambda s: s["greedy"]["per_size"][SIZE].update(valid=edited))
    args = ["leaderboard", "show", str(root), "--resamples", "200"]
    env = {"COLUMNS": "400"}
    shown = CliRunner().invoke(app, args, env=env)
    assert shown.exit_code == 0, shown.output
    skipped = f"skipped (unreadable): {run_dir}: suite {SUITE} in result.json: size {SIZE} "
    assert f"{skipped}greedy valid is {edited} but" in shown.output, shown.output
    strict = CliRunner().invoke(app, [*args, "--strict"], env=env)
    assert strict.exit_code == 2
    (line,) = strict.output.strip().splitlines()
    assert line.startswith(f"error: {run_dir}: suite {SUITE} in result.json: size {SIZE} greedy")
