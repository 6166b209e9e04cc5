"""`benchmarks/bench_trl_overhead.py` at its smallest prints the shape of its comparison.

One bare/harness pair of one optimiser step (2 prompts, n = 2, answers of 2 tokens) and one
validation instance, with SmolLM2-135M-Instruct on this CPU on two threads (the script's
default is one, which its figures want; the shape does not): about a minute.
What is checked is the output's shape -- every part in the table with its seconds, the totals,
the per-repeat line and the ratio line with its target -- never a timing: on a shared machine
the figures swing by tens of percent, and the script itself says whether the target was met.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness.backends.trl.model_files import SmolLM2Missing, smollm2_model

pytestmark = pytest.mark.trl

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_trl_overhead.py"
TINY = ("--repeats", "1", "--rounds-instances", "2", "--group-size", "2", "--answer-tokens",
        "2", "--validation", "1", "--threads", "2")  # fmt: skip
NUMBER = r"-?\d+\.\d"


@pytest.fixture(scope="module")
def printed() -> str:
    try:
        smollm2_model()
    except SmolLM2Missing as err:
        pytest.fail(str(err), pytrace=False)
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *TINY],
        capture_output=True, text=True, timeout=1200,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def row(printed: str, part: str) -> list[str]:
    """The table row of `part`, its cells stripped."""
    found = [line for line in printed.splitlines() if re.match(rf"│ {part} +│", line)]
    assert len(found) == 1, (part, printed)
    return [cell.strip() for cell in found[0].strip("│").split("│")]


def test_every_part_is_listed_with_both_sides_seconds(printed: str) -> None:
    for part in ("training", "checkpoint", "scoring", "total"):
        cells = row(printed, part)
        assert all(re.fullmatch(r"[-+]?\d+\.\d", cell) for cell in cells[1:6]), cells
    data = row(printed, "data")
    assert data[1] == "-" and re.fullmatch(r"\d+\.\d", data[2]), data  # the harness's alone
    assert "checksum" in row(printed, "checkpoint")[6]
    assert not any(re.match(r"│ serving ", line) for line in printed.splitlines()), printed


def test_the_ratio_line_gives_the_overhead_against_its_target(printed: str) -> None:
    ratio = re.search(
        rf"harness / bare: (\d+\.\d{{3}}) wall \((\d+\.\d{{3}}) cpu\): the harness adds "
        rf"[-+]{NUMBER}% wall \([-+]{NUMBER}% cpu\); target <= 10% on the CPU with the tiny "
        r"model: wall (met|MISSED), cpu (met|MISSED)",
        printed,
    )
    assert ratio is not None, printed
    assert float(ratio.group(1)) > 0 and float(ratio.group(2)) > 0
    assert re.search(rf"repeat 1: bare {NUMBER}s, harness {NUMBER}s, harness / bare", printed)


def test_the_header_names_the_machine_and_the_round(printed: str) -> None:
    assert re.search(r"machine: .+ \(\d+ cores\), torch threads 2, MKL branch ", printed), printed
    assert "round: 2 instances x n = 2" in printed and "validation 1 instances" in printed
    assert re.search(r"mean answer tokens per step: bare [\d.]+, harness [\d.]+ \(bound 2\)",
                     printed)  # fmt: skip
