"""Leaderboards from run directories: Sum per designer and suite, with seeds and intervals.

    runs = load_runs([Path("runs/quick")])       # finished runs; runs.skipped: the others
    board = build_board(runs, baseline="random")  # refuses incompatible runs
    print(render(board, "markdown", details=["size"]))
    publish_site(runs, Path("site"), reference=True)  # static site: tables, plots, run pages

Boards are built from `ResultRecord`s alone, read through the runs' task (`Task.verdict_table`;
a board is of one task at one version and refuses to pool two). Every cell holds the task's
rates (`Task.board_rates`; MAPF-FrozenLake's: valid, makespan-optimal -- the paper's "opt." --
and SOC-optimal, the last two "n/a" where the records' suite version lacks that optimum), and a
Sum is the mean over the values of the task's first cut (MAPF: map sizes). Intervals come from a
two-level bootstrap over seeds and instances (`leaderboards.bootstrap` documents it); `Board` is
a versioned pydantic model whose JSON schema ships as `leaderboards/data/board.schema.json`. The
paper's figures (`load_reference`, every cell of its three tables) are shown beside boards,
never mixed in.

Beside the paper's Sum layout, a board follows rliable's practice over the runs x cells score
matrix (a cell: one suite x first-cut value, rliable's "task"): mean and interquartile mean with
stratified-bootstrap intervals (`Board.aggregates`), the probability of improving on the
baseline (`Board.improvements`) and performance profiles (`Board.profiles`), computed in numpy
(`leaderboards.robust` says why, and is tested against rliable's outputs). It also carries the
validation curve per round with bands over seeds (`Board.curves`), the controls -- each
designer's overall Sum normalised between random (0) and matched (1), and the sensitivity
lines matched - random and harder - random (then matched - harder), paired where the seeds
match (`Board.controls`) -- and the smallest difference it could have detected, from the paired
spread of differences against random where designers ran its seeds (`Board.power`;
`seeds_needed` sizes a comparison).

Runs travel as bundles (`bundle_runs`): records, every stored benchmark answer and a checksummed
manifest; `verify_bundle` re-scores each answer with the installed verifier and suites, and
`merge_bundles` adds only verified, compatible runs to a shared board. Sites and bundles read
MAPF-FrozenLake's configurations and suites, and refuse another task's runs in one line."""

from leaderboards.aggregate import build_board
from leaderboards.board import (
    BOARD_SCHEMA_VERSION,
    Aggregate,
    Board,
    BootstrapSpec,
    Controls,
    CostRow,
    Cut,
    Delta,
    DeltaCell,
    DesignerRow,
    DesignFailures,
    DetailRow,
    DetectableDifference,
    Estimate,
    FailureRow,
    Improvement,
    NormalisedScore,
    Profile,
    RateCell,
    ReferenceBoard,
    ReferenceDiscrepancy,
    ReferenceRates,
    ReferenceRow,
    RoundCurve,
    RunRef,
    SuiteInfo,
    UnrankedRow,
    board_json_schema,
)
from leaderboards.bootstrap import BOOTSTRAP_SEED, ONE_SEED, RESAMPLES
from leaderboards.bundles import (
    BundleError,
    BundleManifest,
    BundleSummary,
    MergeResult,
    Verification,
    bundle_runs,
    merge_bundles,
    verify_bundle,
)
from leaderboards.compat import check_compatible, machine_notes
from leaderboards.errors import LeaderboardError
from leaderboards.metrics import Metric
from leaderboards.power import detectable_difference, runs_power, seeds_needed
from leaderboards.readers import (
    LoadedRun,
    RunSet,
    SkippedRun,
    VerdictPool,
    discover,
    load_run,
    load_runs,
    share_verdicts,
)
from leaderboards.reference import load_reference, sum_discrepancies
from leaderboards.render import FORMATS, Format, board_tables, render, terminal_renderable
from leaderboards.robust import (
    aggregate_iqm,
    aggregate_mean,
    probability_of_improvement,
    score_profile,
)
from leaderboards.site import SiteResult, publish_site

__all__ = [
    "BOARD_SCHEMA_VERSION",
    "BOOTSTRAP_SEED",
    "FORMATS",
    "ONE_SEED",
    "RESAMPLES",
    "Aggregate",
    "Board",
    "BootstrapSpec",
    "BundleError",
    "BundleManifest",
    "BundleSummary",
    "Controls",
    "CostRow",
    "Cut",
    "Delta",
    "DeltaCell",
    "DesignFailures",
    "DesignerRow",
    "DetailRow",
    "DetectableDifference",
    "Estimate",
    "FailureRow",
    "Format",
    "Improvement",
    "LeaderboardError",
    "LoadedRun",
    "MergeResult",
    "Metric",
    "NormalisedScore",
    "Profile",
    "RateCell",
    "ReferenceBoard",
    "ReferenceDiscrepancy",
    "ReferenceRates",
    "ReferenceRow",
    "RoundCurve",
    "RunRef",
    "RunSet",
    "SiteResult",
    "SkippedRun",
    "SuiteInfo",
    "UnrankedRow",
    "VerdictPool",
    "Verification",
    "aggregate_iqm",
    "aggregate_mean",
    "board_json_schema",
    "board_tables",
    "build_board",
    "bundle_runs",
    "check_compatible",
    "detectable_difference",
    "discover",
    "load_reference",
    "load_run",
    "load_runs",
    "machine_notes",
    "merge_bundles",
    "probability_of_improvement",
    "publish_site",
    "render",
    "runs_power",
    "score_profile",
    "seeds_needed",
    "share_verdicts",
    "sum_discrepancies",
    "terminal_renderable",
    "verify_bundle",
]
