"""Both optimal rates on every board: makespan (the paper's) and SOC; n/a where a suite version's
answer keys lack an optimum; a record scored on suite version 1 is left out in one line."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from leaderboards import (
    BOARD_SCHEMA_VERSION,
    Board,
    Format,
    LeaderboardError,
    LoadedRun,
    build_board,
    load_runs,
    render,
)
from leaderboards.metrics import NA
from mapf_env import Objective
from mapf_env.suites import OPTIMA
from run_records import ResultRecord, verdict_reports
from tests.leaderboards.handmade import rates, record, run, suite

FAST = 400

# size 3: 10 answers, 6 valid, 2 SOC-optimal, 5 makespan-optimal; size 4: 10, 4, 1, 3
V2 = rates({3: (10, 6, 2, 5), 4: (10, 4, 1, 3)})
SOC_ONLY = 3
"""A suite version whose answer keys hold SOC minima only (`soc_only_keys` makes it one)."""
NOT_KEYED = f"n/a: the 3agents records are of suite version {SOC_ONLY} (SOC optima only)"


@pytest.fixture
def soc_only_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(OPTIMA, SOC_ONLY, (Objective.SOC,))


def test_version_2_records_give_both_optimal_rates_each_from_its_own_flags() -> None:
    board = build_board([run("random", s, V2) for s in (0, 1)], resamples=FAST)
    (row,) = board.rows
    cell = row.suites["3agents"]
    assert cell.get("valid").mean == pytest.approx(50.0)
    assert cell.get("optimal_makespan") is not None and cell.get("optimal_soc") is not None
    assert cell.get("optimal_makespan").mean == pytest.approx(40.0)  # (50% + 30%) / 2
    assert cell.get("optimal_soc").mean == pytest.approx(15.0)  # (20% + 10%) / 2
    for e in (cell.get("optimal_makespan"), cell.get("optimal_soc")):
        assert e.low is not None and e.high is not None and e.low <= e.mean <= e.high
    assert row.overall.get("optimal_makespan") == cell.get("optimal_makespan")
    sizes = {d.key: d.rates for d in board.details if d.cut == "size"}
    assert (
        sizes["3"].get("optimal_makespan") is not None
        and sizes["3"].get("optimal_makespan").mean == 50.0
    )
    assert sizes["4"].get("optimal_soc") is not None and sizes["4"].get("optimal_soc").mean == 10.0
    (info,) = board.suites
    assert info.strata == ("3", "4") and info.unavailable == {}
    assert set(board.metrics) == {"valid", "optimal_makespan", "optimal_soc"}


def test_deltas_and_cuts_cover_both_optimal_rates() -> None:
    better = rates({3: (10, 8, 3, 8), 4: (10, 6, 1, 6)})
    runs = [run("random", s, V2) for s in range(3)] + [run("better", s, better) for s in range(3)]
    board = build_board(runs, resamples=FAST)
    rows = {r.designer: r for r in board.rows}
    delta = rows["better"].delta_overall
    assert delta is not None and delta.get("optimal_makespan") is not None
    assert delta.get("optimal_soc") is not None and delta.get("optimal_makespan").paired
    assert delta.get("optimal_makespan").mean == pytest.approx(30.0)  # (80 - 50 + 60 - 30) / 2
    assert delta.get("optimal_soc").mean == pytest.approx(5.0)  # (30 - 20 + 10 - 10) / 2
    assert delta.get("optimal_makespan").includes_zero is False
    for cut in ("subset", "hole"):
        cells = [d for d in board.details if d.cut == cut]
        assert cells and all(d.rates.get("optimal_makespan") is not None for d in cells), cut


def test_best_of_reads_the_best_of_n_makespan_flags() -> None:
    result = suite(V2)
    verdicts = tuple(
        v.model_copy(update={"best_of_optimal_makespan": v.best_of_valid}) for v in result.verdicts
    )
    loaded = run("random", 0, V2)
    best_of = verdict_reports(verdicts)["best_of"]  # the counts its verdicts give
    suites = {"3agents": result.model_copy(update={"verdicts": verdicts, "best_of": best_of})}
    loaded = type(loaded)(loaded.path, record("random", 0, suites))
    greedy = build_board([loaded], resamples=FAST, details=()).rows[0].suites["3agents"]
    best = build_board([loaded], answers="best_of", resamples=FAST, details=()).rows[0]
    assert (
        greedy.get("optimal_makespan") is not None and greedy.get("optimal_makespan").mean == 40.0
    )
    makespan = best.suites["3agents"].get("optimal_makespan")
    assert makespan is not None and makespan.mean == pytest.approx(50.0), "every valid answer"


def soc_keyed(designer: str, seed: int) -> LoadedRun:
    """A run scored on a suite version whose keys hold SOC minima only: its makespan flags,
    whatever they hold, are not read."""
    loaded = run(designer, seed, V2)
    suites = {"3agents": suite(V2, version=SOC_ONLY)}
    return type(loaded)(loaded.path, record(designer, seed, suites))


@pytest.mark.usefixtures("soc_only_keys")
def test_a_rate_the_keys_lack_shows_na_with_a_note_never_zero_or_another_rate() -> None:
    runs = [soc_keyed("random", s) for s in (0, 1)] + [soc_keyed("other", s) for s in (0, 1)]
    board = build_board(runs, resamples=FAST)
    for row in board.rows:
        assert row.suites["3agents"].get("optimal_makespan") is None
        assert row.overall.get("optimal_makespan") is None
        soc = row.suites["3agents"].get("optimal_soc")
        assert soc is not None and soc.mean == pytest.approx(15.0)
        assert row.delta is None or row.delta["3agents"].get("optimal_makespan") is None
    assert all(d.rates.get("optimal_makespan") is None for d in board.details)
    (info,) = board.suites
    assert info.unavailable["optimal_makespan"].startswith(
        NOT_KEYED.removeprefix("n/a: the 3agents ")
    )
    formats: list[tuple[Format, str, str]] = [
        ("terminal", "opt. makespan (paper's)", "│"),
        ("markdown", "opt. makespan (paper's)", "|"),
        ("html", "opt. makespan (paper&#39;s)", "<td"),
    ]
    for fmt, label, cell in formats:
        text = render(board, fmt, details=["size"], width=240)
        assert NOT_KEYED in text, fmt
        lines = [line for line in text.splitlines() if label in line and cell in line]
        assert len(lines) == 5, fmt  # main (two designers), deltas (one), size detail (two)
        assert all(NA in line for line in lines), fmt
    table = render(board, "markdown")
    assert "| opt. makespan (paper's) | n/a | n/a |" in table
    assert "| opt. SOC | 15.0 [" in table
    rows = list(csv.DictReader(io.StringIO(render(board, "csv"))))
    makespan = [
        r for r in rows if r["metric"] == "optimal_makespan" and r["section"] != "reference"
    ]
    assert makespan and all(r["value"] == "" and r["note"].startswith(NOT_KEYED) for r in makespan)
    dumped = json.loads(render(board, "json"))
    assert dumped["rows"][0]["suites"]["3agents"]["optimal_makespan"] is None


@pytest.mark.usefixtures("soc_only_keys")
def test_a_board_mixing_suite_versions_is_refused() -> None:
    keyed, other = soc_keyed("random", 0), run("other", 0, V2)
    with pytest.raises(LeaderboardError, match="different versions of benchmark 3agents"):
        build_board([keyed, other], resamples=FAST)
    # the same contents under another version are refused too, by their versions
    relabelled = suite(V2, version=SOC_ONLY).model_copy(update={"content_sha256": "hand-v2"})
    same_contents = type(keyed)(keyed.path, record("random", 0, {"3agents": relabelled}))
    with pytest.raises(LeaderboardError, match=rf"suite version {SOC_ONLY} vs 2"):
        build_board([same_contents, other], resamples=FAST)


def _write(path: Path, rec: ResultRecord) -> Path:
    path.mkdir(parents=True)
    (path / "result.json").write_text(rec.model_dump_json())
    return path


def test_records_round_trip_and_a_version_2_record_without_makespan_flags_is_skipped(
    tmp_path: Path,
) -> None:
    good = _write(
        tmp_path / "runs" / "random" / "seed-0", record("random", 0, {"3agents": suite(V2)})
    )
    loaded = load_runs([good])
    assert not loaded.skipped and len(loaded) == 1
    assert loaded[0].record.suites["3agents"].optima == suite(V2).optima
    damaged = json.loads((good / "result.json").read_text())
    damaged["suites"]["3agents"]["verdicts"][0]["optimal_makespan"] = None
    bad = tmp_path / "bad" / "random" / "seed-0"
    bad.mkdir(parents=True)
    (bad / "result.json").write_text(json.dumps(damaged))
    (skipped,) = load_runs([bad]).skipped
    assert skipped.kind == "unreadable"
    assert "is of version 2 but some verdicts lack their greedy optimal_makespan flag" in str(
        skipped
    )


def test_a_record_scored_on_suite_version_1_is_left_out_in_one_line(tmp_path: Path) -> None:
    """Suite version 1's answer keys held SOC minima only, and its records count `optimal` as
    SOC-optimal: a board leaves such a run out, saying what it is and how to re-score it."""
    path = tmp_path / "runs" / "random" / "seed-0"
    _write(path, record("random", 0, {"3agents": suite(V2)}))
    fields = json.loads((path / "result.json").read_text())
    fields["suites"]["3agents"]["suite_version"] = 1
    (path / "result.json").write_text(json.dumps(fields))
    loaded = load_runs([path])
    assert len(loaded) == 0
    (skipped,) = loaded.skipped
    assert skipped.kind == "other-version" and "\n" not in str(skipped)
    assert str(skipped) == (
        f"{path}: result.json holds a suite result scored on suite version 1's answer keys "
        "(SOC minima only) at suites.3agents, which this version cannot read; re-score the "
        "run's stored answers (answers/<suite>.jsonl.gz) on the installed suites with "
        "run_records.score_answers, or run the experiment again where the run stored none"
    )


def test_board_json_carries_the_new_schema_version() -> None:
    board = build_board([run("random", 0, V2)], resamples=FAST, details=())
    assert Board.model_validate_json(render(board, "json")).schema_version == BOARD_SCHEMA_VERSION
