"""Where each process's model load ends, as the verl backend measures it (no clock thresholds)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.backends.verl.generate import GenerateRequest, answer_all, read_timings, write_prompts
from harness.backends.verl.loads import LoadLedger, TrainerReady


def test_training_is_loaded_when_verls_file_logger_creates_its_file(tmp_path: Path) -> None:
    metrics = tmp_path / "attempt-1.jsonl"
    ready = TrainerReady(metrics)
    ready.started -= 60.0  # as if the trainer had started a minute ago
    ready.check()
    assert ready.seconds() is None  # verl is still loading
    metrics.touch()  # FileLogger opens it with mode "w" after init_workers, writes nothing yet
    os.utime(metrics, (ready.started + 7.0, ready.started + 7.0))
    ready.check()
    assert ready.seconds() == pytest.approx(7.0)
    metrics.write_text('{"step": 1}\n')
    ready.check()
    assert ready.seconds() == pytest.approx(7.0)  # seen once, kept


def test_a_file_already_written_counts_from_when_it_was_seen(tmp_path: Path) -> None:
    metrics = tmp_path / "attempt-1.jsonl"
    ready = TrainerReady(metrics)
    metrics.write_text('{"step": 1}\n')
    os.utime(metrics, (ready.started + 1e6, ready.started + 1e6))  # a later write's time
    ready.check()
    seconds = ready.seconds()
    assert seconds is not None and 0.0 <= seconds < 1e6  # not the last write's time


def test_the_ledger_hands_over_its_loads_once(tmp_path: Path) -> None:
    ledger = LoadLedger()
    ledger.load("training", "m", -0.5, 3.0, "attempt 2: resumed from a checkpoint")
    ledger.note("validation answers from a separate vLLM pass: reason")
    ledger.validation_seconds = 2.0
    taken = ledger.take()
    assert [(x.kind, x.seconds, x.process_seconds) for x in taken.loads] == [("training", 0.0, 3.0)]
    assert taken.notes == ("validation answers from a separate vLLM pass: reason",)
    assert taken.validation_seconds == 2.0
    assert ledger.take().loads == () and ledger.take().validation_seconds is None


def test_the_generator_reports_its_load_apart_from_its_answers(tmp_path: Path) -> None:
    request = GenerateRequest(model="m", prompts=tmp_path / "p.jsonl", answers=tmp_path / "a.jsonl",
                              n=1, temperature=0.0, top_p=1.0, max_tokens=8, seed=0,
                              tensor_parallel=1, gpu_memory_utilization=0.5,
                              timings=tmp_path / "timings.json")  # fmt: skip
    write_prompts(request.prompts, [("a", [{"role": "user", "content": "x"}])])
    order: list[str] = []

    def load(r: GenerateRequest) -> Callable[[list[Any]], list[list[str]]]:
        order.append("load")

        def engine(convs: list[Any]) -> list[list[str]]:
            order.append("answer")
            return [["ok"] for _ in convs]

        return engine

    timings = answer_all(request, load, started=0.0)
    assert order == ["load", "answer"]
    assert read_timings(tmp_path / "timings.json") == timings
    assert timings.prompts == 1 and timings.load_seconds > 0.0  # counted from `started`
    assert read_timings(tmp_path / "missing.json") is None
