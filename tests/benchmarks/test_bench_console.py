"""Benchmark scripts print their whole tables when piped to a file (no cell cut to "…")."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
SCRIPTS = ("bench_env.py", "bench_solver.py", "bench_scoring.py", "bench_cpu_learner.py")


def _bench_console() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_console", BENCHMARKS / "bench_console.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_piped_benchmark_prints_its_full_table() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_scoring.py"), "--quick"],
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    rows = [line for line in done.stdout.splitlines() if line.startswith("│")]
    assert len(rows) == 5, done.stdout
    assert "…" not in done.stdout and "..." not in done.stdout, done.stdout
    assert re.search(r"│ reference: json\.dumps\(response\) +│ +[\d,]+ │", done.stdout), done.stdout
    assert any("verify + reward + as_dict" in row for row in rows), done.stdout


def test_the_console_is_wide_off_a_terminal_and_at_least_min_width_on_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    module = _bench_console()
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    piped = module.bench_console()
    assert not piped.is_terminal and piped.width == module.PIPED_WIDTH
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich then treats the output as a terminal
    monkeypatch.setenv("COLUMNS", "100")
    assert module.bench_console().width == module.MIN_WIDTH
    monkeypatch.setenv("COLUMNS", "220")
    assert module.bench_console().width == 220


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_script_prints_through_the_shared_console(script: str) -> None:
    source = (BENCHMARKS / script).read_text(encoding="utf-8")
    assert "bench_console()" in source and "Console(" not in source, script
