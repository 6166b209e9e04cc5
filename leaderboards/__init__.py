"""Leaderboards from run directories: Sum per designer and agent count, with seeds and intervals.

    runs = load_runs([Path("runs/quick")])       # finished runs; runs.skipped: the others
    board = build_board(runs, baseline="random")  # refuses incompatible runs
    print(render(board, "markdown", details=["size"]))
    publish_site(runs, Path("site"), reference=True)  # static site: tables, plots, run pages

Boards are built from `ResultRecord`s alone. Every cell holds three rates (`leaderboards.metrics`):
valid, makespan-optimal (the paper's "opt.") and SOC-optimal, the last two "n/a" where the
records' suite version lacks that optimum. Intervals come from a two-level bootstrap over
seeds and instances (`leaderboards.bootstrap` documents it); `Board` is a versioned pydantic
model whose JSON schema ships as `leaderboards/data/board.schema.json`. The paper's figures
(`load_reference`, every cell of its three tables) are shown beside boards, never mixed in.
"""

from leaderboards.aggregate import build_board
from leaderboards.board import (
    BOARD_SCHEMA_VERSION,
    Board,
    BootstrapSpec,
    CostRow,
    Cut,
    Delta,
    DeltaCell,
    DesignerRow,
    DesignFailures,
    DetailRow,
    Estimate,
    FailureRow,
    RateCell,
    ReferenceBoard,
    ReferenceDiscrepancy,
    ReferenceRates,
    ReferenceRow,
    RunRef,
    SuiteInfo,
    UnrankedRow,
    board_json_schema,
)
from leaderboards.bootstrap import BOOTSTRAP_SEED, ONE_SEED, RESAMPLES
from leaderboards.compat import check_compatible, machine_notes
from leaderboards.errors import LeaderboardError
from leaderboards.metrics import METRICS, Metric
from leaderboards.readers import LoadedRun, RunSet, SkippedRun, discover, load_run, load_runs
from leaderboards.reference import load_reference, sum_discrepancies
from leaderboards.render import FORMATS, Format, board_tables, render, terminal_renderable
from leaderboards.site import SiteResult, publish_site

__all__ = [
    "BOARD_SCHEMA_VERSION",
    "BOOTSTRAP_SEED",
    "FORMATS",
    "METRICS",
    "ONE_SEED",
    "RESAMPLES",
    "Board",
    "BootstrapSpec",
    "CostRow",
    "Cut",
    "Delta",
    "DeltaCell",
    "DesignFailures",
    "DesignerRow",
    "DetailRow",
    "Estimate",
    "FailureRow",
    "Format",
    "LeaderboardError",
    "LoadedRun",
    "Metric",
    "RateCell",
    "ReferenceBoard",
    "ReferenceDiscrepancy",
    "ReferenceRates",
    "ReferenceRow",
    "RunRef",
    "RunSet",
    "SiteResult",
    "SkippedRun",
    "SuiteInfo",
    "UnrankedRow",
    "board_json_schema",
    "board_tables",
    "build_board",
    "check_compatible",
    "discover",
    "load_reference",
    "load_run",
    "load_runs",
    "machine_notes",
    "publish_site",
    "render",
    "sum_discrepancies",
    "terminal_renderable",
]
