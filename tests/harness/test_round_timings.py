"""Where a round's time went: the loop's phase clock, the record's shares, `harness runs show`.

The verl backend's model loads are tested with its stand-ins (tests/harness/verl/
test_validation_dump.py); here the CPU learner, which loads no model, and the arithmetic.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from harness.backends.factory import make_backend
from harness.events import PhaseClock
from harness.experiment import ExperimentConfig
from harness.loop import run_designer
from harness.run_dir import RunDir
from harness_cli import app
from harness_cli.runs import SHARE_HEADERS
from run_records import (
    OVERHEAD_SHARES,
    ModelLoad,
    ResultRecord,
    RoundResult,
    RoundTimings,
    TrainStep,
)

WIDE = {"COLUMNS": "400"}


class Ticks:
    """A clock that moves only when told to."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_clock_gives_each_phase_its_time_until_the_next_starts() -> None:
    ticks = Ticks()
    clock = PhaseClock(ticks)
    clock.phase("generate", 0)
    ticks.now += 2
    clock.phase("train", 0)
    ticks.now += 10
    assert clock.of(0) == {"generate": 2.0, "train": 10.0}  # a lap: train goes on
    ticks.now += 5
    clock.phase("evaluate", 0)
    ticks.now += 1
    clock.phase("generate", 1)
    ticks.now += 3
    clock.phase("done", 2)
    ticks.now += 50  # after done nothing is timed
    assert clock.of(0) == {"generate": 2.0, "train": 15.0, "evaluate": 1.0}
    assert clock.of(1) == {"generate": 3.0}


def test_shares_take_the_loads_out_of_their_phases_and_add_up() -> None:
    loads = (
        ModelLoad(kind="training", model="m", seconds=30.0, process_seconds=90.0),
        ModelLoad(kind="evaluation", model="m", seconds=8.0, process_seconds=12.0),
        ModelLoad(kind="serving-policy", model="m", seconds=6.0),
    )
    timings = RoundTimings(phases={"generate": 4.0, "train": 100.0, "evaluate": 12.0,
                                   "design": 20.0}, step_seconds=50.0, loads=loads,
                           validation_seconds=None)  # fmt: skip
    shares = timings.shares()
    assert list(shares) == list(OVERHEAD_SHARES)
    assert shares == {"data": 4.0, "model loads": 44.0, "training steps": 50.0,
                      "evaluation": 4.0, "design": 14.0, "other": 20.0}  # fmt: skip
    assert sum(shares.values()) == timings.total == 136.0
    inside = timings.model_copy(update={"validation_seconds": 3.0, "loads": loads[:1]})
    assert inside.shares()["evaluation"] == 12.0 + 3.0  # verl's own validation is evaluation
    assert timings.load_seconds("serving-policy", "serving-base") == 6.0


def test_a_cpu_round_records_its_phases_and_no_model_load(tmp_path: Path) -> None:
    experiment = ExperimentConfig.from_mapping({
        "name": "tiny", "rounds": 2, "samples_per_round": 60, "epochs_per_round": 1,
        "validation": "validation", "benchmarks": ["validation"], "best_of": 2,
    })  # fmt: skip
    run = RunDir(tmp_path, experiment, "random", 0)
    record = run_designer(experiment, "random", 0, make_backend(experiment, threads=1), run,
                          workers=1)  # fmt: skip
    first, last = record.rounds
    assert first.timings is not None and last.timings is not None
    assert set(first.timings.phases) == {"generate", "train", "evaluate", "design"}
    assert set(last.timings.phases) == {"generate", "train", "evaluate"}
    assert first.timings.loads == ()
    # The CPU learner's target is its fingerprint, the same in every round and in the record.
    assert record.machine is not None and record.machine.fingerprint is not None
    assert first.target == last.target == {"fingerprint": record.machine.fingerprint}
    assert first.timings.step_seconds == sum(s.seconds for s in _curves(run, 0))
    assert record.benchmark_timings is not None
    assert set(record.benchmark_timings.phases) == {"benchmark"}
    on_disk = RoundResult.model_validate_json(run.round_path(0).joinpath("round.json").read_text())
    assert on_disk.timings == first.timings

    shown = CliRunner().invoke(app, ["runs", "show", str(run.path)], env=WIDE)
    assert shown.exit_code == 0, shown.output
    assert "Where each round's time went" in shown.output
    assert all(SHARE_HEADERS.get(name, name) in shown.output for name in OVERHEAD_SHARES)
    # Said once: the fingerprint did not change between rounds.
    assert shown.output.count("ran on") == 1
    assert f"round 1/2 ran on: fingerprint {record.machine.fingerprint}" in shown.output


def test_records_without_timings_read_and_show(tmp_path: Path) -> None:
    experiment = ExperimentConfig.from_mapping({
        "name": "tiny", "rounds": 1, "samples_per_round": 60, "epochs_per_round": 1,
        "validation": "validation", "benchmarks": ["validation"], "best_of": 2,
    })  # fmt: skip
    run = RunDir(tmp_path, experiment, "random", 0)
    run_designer(experiment, "random", 0, make_backend(experiment, threads=1), run, workers=1)
    result = json.loads((run.path / "result.json").read_text())
    for r in result["rounds"]:
        del r["timings"], r["target"]
    del result["benchmark_timings"]
    (run.path / "result.json").write_text(json.dumps(result))
    untimed = ResultRecord.model_validate(result)
    assert untimed.rounds[0].timings is None and untimed.benchmark_timings is None
    shown = CliRunner().invoke(app, ["runs", "show", str(run.path)], env=WIDE)
    assert shown.exit_code == 0, shown.output
    assert "Where each round's time went" not in shown.output


def _curves(run: RunDir, n: int) -> list[TrainStep]:
    return [TrainStep.model_validate_json(line) for line in run.curves(n).read_text().splitlines()]
