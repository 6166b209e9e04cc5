"""The table `harness compare` ends with fits 80 columns whole, and counts read as counts.

At 80 columns (logs, CI, pipes) no cell may wrap or be cut: each designer takes exactly its
three rate rows, and how its design steps went is said under the table, the reasons whole. The
number of runs behind a row is headed `runs`, so that `1` reads as one run, not as seed 1.
"""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from designers import Proposal
from harness_cli.comparison import ALL_DESIGNED, comparison, comparison_table
from mapf_env import EnvConfig, EvalReport, GenerationStats
from run_records import ResultRecord, RoundResult
from tests.leaderboards.handmade import rates, run

SUITES = ("4agents", "5agents")  # with the handmade 3agents: the presets' three suites
REASON = "rate limit (429)"
RATE_LABELS = ("valid", "opt. makespan", "opt. SOC")  # MAPF-FrozenLake's rates, the paper's first


def _record(designer: str, seed: int, reasons: tuple[str | None, ...] = ()) -> ResultRecord:
    """A finished run of `designer` on the three suites; one design step per reason (None: the
    step designed)."""
    answers = rates({3: (10, 7, 4, 3), 5: (10, 5, 2, 1)})
    record = run(designer, seed, answers, **dict.fromkeys(SUITES, answers)).record
    config = EnvConfig.uniform()
    stats = GenerationStats(sizes={}, total=0, seconds=0.0, workers=1)
    rounds = tuple(
        RoundResult(round=i, config=config, stats=stats, validation=EvalReport(),
                    proposal=Proposal(designer=designer, config=config,
                                      kept_previous=reason is not None, failure_reason=reason,
                                      failures=(reason,) if reason else ()),
                    train_seconds=0.1, samples=10, epochs=1)
        for i, reason in enumerate(reasons)
    )  # fmt: skip
    return record.model_copy(update={"rounds": rounds})


def _shown(records: list[ResultRecord], width: int) -> list[str]:
    out = io.StringIO()
    Console(file=out, width=width).print(comparison(records))  # piped: not a terminal
    return out.getvalue().splitlines()


@pytest.mark.parametrize("width", [80, 200])
def test_the_table_fits_80_columns_with_no_cell_wrapped_or_cut(width: int) -> None:
    records = [_record("evidence", 0, (None, None)), _record("evidence", 1, (None, None)),
               _record("gpt@V6+details", 0, (None, REASON, REASON)),
               _record("hand", 0, (None, None))]  # fmt: skip
    lines = _shown(records, width)
    assert all(len(line) <= 80 for line in lines), "\n".join(lines)
    table = comparison_table(records)
    assert lines[0].strip() == table.title  # neither wrapped
    assert table.caption in [line.strip() for line in lines]
    assert "…" not in "\n".join(lines)
    rows = [[cell.strip() for cell in line.split("│")[1:-1]] for line in lines
            if line.startswith("│")]  # fmt: skip
    assert len(rows) == 3 * len(RATE_LABELS), "\n".join(lines)  # no cell wrapped onto a 4th
    assert [r[2] for r in rows] == list(RATE_LABELS) * 3
    assert [r[:2] for r in rows[::3]] == [["evidence", "2"], ["gpt@V6+details ‡", "1"],
                                          ["hand", "1"]]  # fmt: skip
    header = next(line for line in lines if "designer" in line)
    assert [cell.strip() for cell in header.split("┃")[1:-1]] == [
        "designer", "runs", "rate", "3agents", *SUITES]  # fmt: skip
    assert lines[-1] == f"‡ gpt@V6+details: 2/3 design steps failed: {REASON}"


def test_no_failed_step_is_said_once_under_the_table() -> None:
    lines = _shown([_record("random", 0, (None,)), _record("uniform", 0)], 80)
    assert lines[-1] == ALL_DESIGNED and "‡" not in "\n".join(lines)


def test_a_long_reason_is_said_whole_under_the_table() -> None:
    reason = "no usable change set in 3 attempts: " + "the answer named no size " * 4
    lines = _shown([_record("gpt", 0, (reason.strip(),))], 80)
    table = [line for line in lines if line.startswith(("│", "┃"))]
    assert all(len(line) <= 80 for line in lines) and len(table) == 4, "\n".join(lines)
    under = lines[lines.index(next(x for x in lines if x.startswith("‡"))) :]
    assert " ".join(" ".join(under).split()) == f"‡ gpt: 1/1 design steps failed: {reason.strip()}"
