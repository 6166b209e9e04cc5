"""`harness runs show` reads whole at 80 columns (logs, CI, pipes): no cell cut, none wrapped.

A real two-round run of the CPU learner, shown piped at COLUMNS=80: every line fits, nothing
ends in an ellipsis, each configuration table (share of samples, holes, waits) has one line per
round with every size's value as the record has it, and the time table's headers are whole. The
same run with a long designer entry and a round of many model loads (as verl records them)
still fits: the designer is whole, the loads wrap inside their cell.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.backends.factory import make_backend
from harness.experiment import ExperimentConfig
from harness.loop import run_designer
from harness.run_dir import RunDir
from harness_cli import app
from harness_cli.runs import CONFIG_FIELDS, SHARE_HEADERS
from mapf_env import SIZES
from run_records import OVERHEAD_SHARES, ResultRecord

NARROW = {"COLUMNS": "80"}


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ResultRecord]:
    experiment = ExperimentConfig.from_mapping({
        "name": "tiny", "rounds": 2, "samples_per_round": 40, "epochs_per_round": 1,
        "validation": "validation", "benchmarks": ["validation"], "best_of": 1,
    })  # fmt: skip
    run = RunDir(tmp_path_factory.mktemp("runs"), experiment, "random", 0)
    record = run_designer(experiment, "random", 0, make_backend(experiment, threads=1), run,
                          workers=1)  # fmt: skip
    return run.path, record


def _show(path: Path) -> list[str]:
    shown = CliRunner().invoke(app, ["runs", "show", str(path)], env=NARROW)
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert all(len(line) <= 80 for line in lines), shown.output
    assert "…" not in shown.output, shown.output
    return lines


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.split("│")[1:-1]]


def test_the_configuration_tables_fit_80_columns_whole(
    finished: tuple[Path, ResultRecord],
) -> None:
    path, record = finished
    lines = _show(path)
    for field, what in CONFIG_FIELDS:
        title = next(i for i, line in enumerate(lines) if f"{what} per size (%)" in line)
        top = next(i for i in range(title, len(lines)) if lines[i].startswith("┃"))
        assert [c.strip() for c in lines[top].split("┃")[1:-1]] == [
            "round", *(f"{s}x{s}" for s in SIZES)]  # fmt: skip
        body = lines[top + 2 : top + 2 + len(record.rounds)]
        for r, line in zip(record.rounds, body, strict=True):  # one line a round: none wrapped
            values = [f"{100 * getattr(r.config.sizes[s], field):.1f}" for s in SIZES]
            assert _cells(line) == [f"{r.round + 1}/2", *values], line
        assert lines[top + 2 + len(record.rounds)].startswith("└")
    timing = "\n".join(lines[next(i for i, x in enumerate(lines) if "time went" in x) :])
    assert all(word in timing for name in OVERHEAD_SHARES
               for word in SHARE_HEADERS.get(name, name).split())  # fmt: skip


def test_a_long_designer_and_many_loads_still_fit(
    finished: tuple[Path, ResultRecord], tmp_path: Path
) -> None:
    path = tmp_path / "run"
    shutil.copytree(finished[0], path)
    result = json.loads((path / "result.json").read_text())
    result["rounds"][0]["proposal"]["designer"] = "gpt@V6+details"
    kinds = ("training", "evaluation", "serving-policy", "serving-base")
    for r in result["rounds"]:
        r["timings"]["loads"] = [{"kind": k, "model": "m", "seconds": 0.0} for k in kinds]
    (path / "result.json").write_text(json.dumps(result))
    lines = _show(path)
    assert any("gpt@V6+details" in line for line in lines), "\n".join(lines)
    timing = lines[next(i for i, x in enumerate(lines) if "time went" in x) :]
    table = timing[: next(i for i, x in enumerate(timing) if x.startswith("└"))]
    loads = " ".join(_cells(line)[2] for line in table if line.startswith("│"))
    assert " ".join(loads.split()) == " ".join(["train + eval + serve policy + serve base"] * 2)
