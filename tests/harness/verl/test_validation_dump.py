"""The round's validation from verl's own validation dump, against a separate vLLM pass.

`fake_verl.py` validates after the round's last step as verl does (the dump's file name and
keys, rows in another order than the set's) with the stand-in policy `fake_vllm.py` answers
with, as the model the step saves; so a report from the dump and one from a separate vLLM pass
must agree number for number, and the dump must spare the vLLM load.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness.backends.verl.backend import VerlBackend
from harness.backends.verl.layout import (
    DUMP_KEYS,
    OUTPUT_KEY,
    TRUTH_KEY,
    VALIDATION_DUMP_EXTRA,
    dump_file,
)
from harness.backends.verl.validation import PendingValidation, read_dump
from harness.evaluate import validation_report
from harness.loop import run_designer
from harness.run_dir import RunDir
from harness_cli import app
from mapf_env import Instance, load_suite
from tasks.mapf_frozenlake import MapfFrozenLake
from tests.harness.verl.cases import MAPF_FEED
from tests.harness.verl.test_orchestration import (
    POLICY,
    STEPS,
    calls,
    entries,
    experiment,
    fake_logs,
    runtime,
)


@pytest.fixture
def logs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    return fake_logs(tmp_path, monkeypatch)


MAPF = MapfFrozenLake()


@pytest.fixture(scope="module")
def suite() -> list[Instance]:
    return [item.instance for item in load_suite("validation").items]


def generations(log: Path) -> list[dict[str, Any]]:
    return [e["generate"] for e in entries(log) if "generate" in e]


def trained(tmp_path: Path, data: tuple[Instance, ...], rounds: int = 1) -> VerlBackend:
    backend = VerlBackend(experiment(), tmp_path / "run" / "random" / "seed-0", runtime())
    for _ in range(rounds):
        backend.train_round(data, epochs=2, seed=3)
    return backend


def elsewhere(backend: VerlBackend) -> VerlBackend:
    """A backend with the same model that has no dump to read: it answers by vLLM."""
    fresh = VerlBackend(backend.experiment, backend.workdir, runtime())
    fresh.model, fresh.rounds_done = backend.model, backend.rounds_done
    return fresh


def separate_pass(backend: VerlBackend, suite: list[Instance]) -> list[str]:
    """The current model's greedy answers from a vLLM pass."""
    return [a[0] for a in elsewhere(backend).respond(suite, samples=1, greedy=True, seed=0)]


def test_the_dump_gives_the_separate_passes_answers_and_spares_its_load(
    tmp_path: Path, logs: dict[str, Path], data: tuple[Instance, ...], suite: list[Instance]
) -> None:
    backend = trained(tmp_path, data)
    (call,) = calls(backend, 0)
    assert call["validation"] == {"dir": str(backend.round_dir(0) / "validation"),
                                  "test_freq": STEPS, "do_sample": False, "n": 1}  # fmt: skip
    from_dump = validation_report(MAPF, backend, MAPF.suite("validation").items, seed=0)
    assert generations(logs["vllm"]) == []  # no vLLM process for the round's validation
    assert "no vLLM load" in (backend.root / "logs" / "generate.log").read_text()

    separate = validation_report(MAPF, elsewhere(backend), MAPF.suite("validation").items, seed=0)
    (request,) = generations(logs["vllm"])
    assert request["model"] == backend.current_model and request["temperature"] == 0.0
    assert from_dump == separate  # the same numbers, size by size
    assert 0.4 < from_dump.overall.valid_rate < 0.6
    path = dump_file(backend.round_dir(0) / "validation", STEPS)
    same = read_dump(path, suite, MAPF_FEED)[0] == separate_pass(backend, suite)
    assert same  # and the same texts

    overhead = backend.take_overhead()
    assert [load.kind for load in overhead.loads] == ["training"]
    assert overhead.loads[0].model == POLICY and overhead.validation_seconds is not None
    assert any("verl's own validation" in note for note in overhead.notes)


def test_the_dump_is_read_the_way_verl_writes_it(
    tmp_path: Path, logs: dict[str, Path], data: tuple[Instance, ...], suite: list[Instance]
) -> None:
    backend = trained(tmp_path, data)
    path = dump_file(backend.round_dir(0) / "validation", STEPS)
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert {OUTPUT_KEY, TRUTH_KEY} <= set(DUMP_KEYS)
    assert all(set(DUMP_KEYS) | set(VALIDATION_DUMP_EXTRA) | {"valid"} <= set(r) for r in rows)
    assert {r["step"] for r in rows} == {STEPS} and len(rows) == len(suite)
    ids = [json.loads(r[TRUTH_KEY])["id"] for r in rows]
    assert ids != [inst.id for inst in suite]  # another order: matched by ground truth
    answers, why = read_dump(path, suite, MAPF_FEED)
    assert answers is not None and f"{len(suite)} answers" in why


def test_an_incomplete_dump_falls_back_to_vllm_and_says_why(
    tmp_path: Path, logs: dict[str, Path], data: tuple[Instance, ...], suite: list[Instance]
) -> None:
    backend = trained(tmp_path, data)
    path = dump_file(backend.round_dir(0) / "validation", STEPS)
    lines = path.read_text().splitlines()
    dropped_id = json.loads(json.loads(lines[0])[TRUTH_KEY])["id"]
    dropped = f"#{[inst.id for inst in suite].index(dropped_id)}"
    path.write_text("\n".join(lines[1:]) + "\n")
    report = validation_report(MAPF, backend, MAPF.suite("validation").items, seed=0)
    assert len(generations(logs["vllm"])) == 1  # answered by vLLM instead
    log = (backend.root / "logs" / "generate.log").read_text()
    assert f"separate vLLM pass: {path} has no answer for item {dropped} of the" in log
    overhead = backend.take_overhead()
    assert [load.kind for load in overhead.loads] == ["training", "evaluation"]
    assert any(f"no answer for item {dropped} of the" in note for note in overhead.notes)
    assert report == validation_report(
        MAPF, backend, MAPF.suite("validation").items, seed=0
    )  # the dump is asked once only


def test_the_dump_is_of_the_current_model_only(
    tmp_path: Path, logs: dict[str, Path], data: tuple[Instance, ...], suite: list[Instance]
) -> None:
    backend = trained(tmp_path, data, rounds=2)
    path = dump_file(backend.round_dir(1) / "validation", STEPS)
    assert read_dump(path, suite, MAPF_FEED)[0] == separate_pass(backend, suite)
    old = dump_file(backend.round_dir(0) / "validation", STEPS)
    old_answers = read_dump(old, suite, MAPF_FEED)[0]
    assert old_answers != read_dump(path, suite, MAPF_FEED)[0]  # the texts name the model
    pending = PendingValidation(old, "round-0-model", tmp_path / "log", MAPF_FEED)
    answers, why = pending.answers(suite, backend.current_model)
    assert answers is None and "asked of" in why


def test_a_harness_restarted_before_evaluation_still_finds_the_dump(
    tmp_path: Path, logs: dict[str, Path], data: tuple[Instance, ...], suite: list[Instance]
) -> None:
    first = trained(tmp_path, data)
    expected = validation_report(MAPF, first, MAPF.suite("validation").items, seed=0)
    again = VerlBackend(first.experiment, first.workdir, runtime())  # as after `--resume`
    again.train_round(data, epochs=2, seed=3)
    assert len(calls(again, 0)) == 1  # training was not rerun
    assert validation_report(MAPF, again, MAPF.suite("validation").items, seed=0) == expected
    assert generations(logs["vllm"]) == []
    assert any("earlier harness process" in note for note in again.take_overhead().notes)


def test_the_run_record_keeps_where_each_rounds_time_went(
    tmp_path: Path, logs: dict[str, Path]
) -> None:
    pytest.importorskip("litellm", reason="the base designer asks its model through LiteLLM")
    exp = experiment()
    run = RunDir(tmp_path / "runs", exp, "base", 0)
    record = run_designer(exp, "base", 0, VerlBackend(exp, run.path, runtime()), run, workers=1)
    first, last = record.rounds
    assert first.timings is not None and last.timings is not None
    assert [x.kind for x in first.timings.loads] == ["training", "serving-base"]
    assert [x.kind for x in last.timings.loads] == ["training"]  # no design after the last
    assert first.timings.loads[1].model == POLICY and first.timings.loads[1].process_seconds is None
    assert set(first.timings.phases) == {"generate", "train", "evaluate", "design"}
    assert first.timings.step_seconds == pytest.approx(0.01 * STEPS)  # fake verl's timing_s/step
    shares = first.timings.shares()
    assert sum(shares.values()) == pytest.approx(first.timings.total)
    assert first.target is not None and first.target["attention"] == "sdpa"
    assert first.target["remove_padding"] is False and "flash_attn: false" in first.target["why"]
    bench = record.benchmark_timings
    assert bench is not None and [x.kind for x in bench.loads] == ["evaluation"] * 2
    assert all(x.process_seconds is not None and x.seconds <= x.process_seconds
               for x in bench.loads)  # fmt: skip
    assert len(generations(logs["vllm"])) == 2  # the benchmarks' greedy and sampled passes
    shown = CliRunner().invoke(app, ["runs", "show", str(run.path)], env={"COLUMNS": "400"})
    assert shown.exit_code == 0, shown.output
    assert "train + serve base" in shown.output and "round 1/2 ran on: verl 0.6.1" in shown.output
    assert "no vLLM load" in shown.output  # the round's note on its validation
