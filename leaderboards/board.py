"""`Board`: a leaderboard as data, with a versioned JSON schema other tools can read.

Every rate is in percent (0-100) and every delta in percentage points, as in the paper. A cell
keeps its mean over seeds and its 95% bootstrap interval; with one seed the interval is unknown,
so `low`/`high` are None and `note` says why -- renderers show the note, never an empty cell.
Each cell holds the task's 0/1 rates (`Board.rates`; MAPF-FrozenLake's: valid, makespan-optimal
-- the paper's "opt." -- and SOC-optimal). A rate whose records cannot give it (their items
carry no such optimum) is None, and the suite's `SuiteInfo.unavailable` says why;
renderers show "n/a" with that note. A board is of one task at one version (`Board.task`).
The board is built from result files alone (`leaderboards.build_board`), so it names the runs,
code versions and commits it was built from. A designer some of whose design steps failed carries
`design_failures` (boards flag it); one whose every step failed is listed in `unranked` rather
than ranked in `rows`, unless its runs were started with --allow-design-failures.
Beside the Sum cells, a board carries rliable's aggregates, probabilities of improvement and
performance profiles over the runs x tasks score matrix, validation curves per round, the
controls (normalised scores, sensitivity lines) and the smallest difference it could detect: the
models between `Kind` and `Board`, each documented where it is declared.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel

from leaderboards.metrics import Metric
from tasks import BoardRate

BOARD_SCHEMA_VERSION = "5"
"""The version of `Board`'s JSON schema (leaderboards/data/board.schema.json)."""

Cut = str
"""One of the task's cuts (MAPF-FrozenLake: ``size``, ``subset``, ``hole``)."""
Answers = Literal["greedy", "best_of"]


class Estimate(BaseModel):
    """A rate (percent): mean over seeds and its 95% interval."""

    model_config = ConfigDict(frozen=True)

    mean: float = Field(description="Mean over seeds, percent.")
    low: float | None = Field(default=None, description="Interval's lower end; None if unknown.")
    high: float | None = Field(default=None, description="Interval's upper end; None if unknown.")
    seeds: int = Field(description="Seeds the mean is over.")
    note: str | None = Field(default=None, description="Why the interval is unknown, if it is.")


class Delta(BaseModel):
    """A designer's rate minus the baseline's (percentage points), with its interval."""

    model_config = ConfigDict(frozen=True)

    mean: float
    low: float | None = None
    high: float | None = None
    seeds: int = Field(description="Seeds behind the difference (common seeds when paired).")
    paired: bool = Field(description="True when both designers ran the same seeds.")
    includes_zero: bool | None = Field(
        default=None, description="Whether the interval includes 0 (None when it is unknown)."
    )
    note: str | None = None


Kind = Literal["designer", "policy"]


class Aggregate(BaseModel):
    """rliable's aggregates of one designer's score matrix (runs x cells) for one metric.

    A cell is one benchmark suite x value of the task's first cut (MAPF: map size), a score
    that run's rate on it (rliable calls these "tasks"). Unlike "overall", which weighs every
    suite alike, the mean weighs every cell alike. The intervals resample runs within each cell
    (rliable's stratified bootstrap), so they hold run-to-run variation only; with one run they
    are unknown (`Estimate.note`).
    """

    model_config = ConfigDict(frozen=True)

    designer: str
    kind: Kind
    metric: Metric
    runs: int
    cells: int = Field(
        description="Columns: one per (suite, first-cut value); MAPF's 3/4/5 agents: 21."
    )
    mean: Estimate = Field(description="Mean over runs and cells, stratified-bootstrap 95% CI.")
    iqm: Estimate = Field(
        description="Interquartile mean: the 25% trimmed mean of all run-cell scores."
    )


class Improvement(BaseModel):
    """P(designer > baseline): the chance a random run of the designer beats one of the
    baseline on a random cell (ties count half; 0.5 is no difference)."""

    model_config = ConfigDict(frozen=True)

    designer: str
    baseline: str
    metric: Metric
    probability: float = Field(description="0-1.")
    low: float | None = Field(default=None, description="95% CI; None with one run on a side.")
    high: float | None = None
    runs: int = Field(description="The designer's runs.")
    baseline_runs: int
    note: str | None = Field(default=None, description="Why the interval is unknown.")


class Profile(BaseModel):
    """Performance profile: share of run-cell scores above each threshold tau, with a 95% band."""

    model_config = ConfigDict(frozen=True)

    designer: str
    kind: Kind
    metric: Metric
    taus: tuple[float, ...] = Field(description="Thresholds in percent, 0..100 (101 points).")
    share: tuple[float, ...] = Field(description="0-1, non-increasing in tau.")
    low: tuple[float, ...] | None = Field(default=None, description="Band; None with one run.")
    high: tuple[float, ...] | None = None


class RoundCurve(BaseModel):
    """Validation rate per round (sample efficiency): mean over seeds, 95% band over seeds."""

    model_config = ConfigDict(frozen=True)

    designer: str
    metric: Metric
    rounds: tuple[int, ...]
    mean: tuple[float, ...] = Field(description="Percent, mean over seeds.")
    low: tuple[float, ...] | None = Field(default=None, description="Band; None with one seed.")
    high: tuple[float, ...] | None = None
    seeds: int


class NormalisedScore(BaseModel):
    """A designer's overall Sum rescaled so the fixed random configuration is 0 and `matched` 1."""

    model_config = ConfigDict(frozen=True)

    designer: str
    metric: Metric
    score: float = Field(description="(x - zero) / (one - zero), from the overall Sums.")
    low: float | None = Field(
        default=None, description="95% CI (bootstrap of the ratio, seeds shared where paired)."
    )
    high: float | None = None
    note: str | None = Field(default=None, description="Why the interval is unknown.")


class Controls(BaseModel):
    """The board's brackets: is this budget able to tell designers apart at all?"""

    model_config = ConfigDict(frozen=True)

    zero: str = Field(default="random", description="The 0 of the normalised score.")
    positive: str = Field(
        default="matched", description="The 1 of the normalised score, and the positive control."
    )
    negative: str = Field(default="harder", description="The negative control.")
    normalised: tuple[NormalisedScore, ...] = ()
    positive_minus_zero: dict[str, Delta] = Field(
        default_factory=dict,
        description="Per metric: the positive minus the zero control's overall Sum (matched - "
        "random), points, paired where they ran the same seeds. Only an interval above 0 says "
        "this budget can see a good designer.",
    )
    negative_minus_zero: dict[str, Delta] = Field(
        default_factory=dict,
        description="Per metric: the negative minus the zero control's overall Sum (harder - "
        "random), points, paired where they ran the same seeds. Only an interval below 0 says "
        "this budget can see a bad designer.",
    )
    sensitivity: dict[str, Delta] = Field(
        default_factory=dict,
        description="Per metric: the positive minus the negative control's overall Sum (matched "
        "- harder), points: the coarser line, kept beside the two against the zero control.",
    )
    note: str | None = Field(default=None, description="What is missing, and what to run.")


class DetectableDifference(BaseModel):
    """The smallest difference between two designers this board could have detected."""

    model_config = ConfigDict(frozen=True)

    metric: Metric
    seeds: int = Field(
        description="Seeds per designer the figure is for: paired, the zero control's (which "
        "the paired designers share); unpaired, the board's typical."
    )
    seed_sd: float = Field(
        description="Paired: the SD of the per-seed difference (a designer's run Sum minus the "
        "zero control's of the same seed), points, pooled over the designers that ran its "
        "seeds. Unpaired: the run-to-run SD of a designer's overall Sum, pooled within "
        "designers. 0 when no designer has 2+ seeds."
    )
    instance_sd: float = Field(
        description="The instance-sampling standard error, points, of one seed's difference "
        "(paired: from the per-instance differences) or of one run's overall Sum (unpaired)."
    )
    alpha: float = Field(default=0.05, description="Two-sided.")
    power: float = 0.8
    detectable: float | None = Field(description="Points; None with one seed (no variance).")
    note: str | None = Field(default=None, description="Why there is no figure, or why unpaired.")
    pooled: int | None = Field(
        default=None,
        description="Designers the SD is pooled over: paired, those on the zero control's seeds; "
        "unpaired, those with 2+ seeds.",
    )
    paired: bool = Field(
        default=False,
        description="True: the figure is of a paired comparison on the zero control's seeds, "
        "detectable = z sqrt((seed_sd^2 + instance_sd^2) / seeds); False: the unpaired "
        "fallback (no designer shares its seeds), z sqrt(2 (seed_sd^2 + instance_sd^2) / seeds).",
    )
    against: str | None = Field(
        default=None,
        description="The designer the paired differences are taken from; None unpaired.",
    )
    unpaired_detectable: float | None = Field(
        default=None,
        description="Paired only: the unpaired figure at the same seeds, what a comparison of "
        "designers on different seeds resolves.",
    )


class RateCell(RootModel[dict[str, Estimate | None]]):
    """Each of the board's rates (`Board.rates`) in one cell, by key; None where the records
    cannot give it (`SuiteInfo.unavailable` says why)."""

    model_config = ConfigDict(frozen=True)

    def get(self, metric: Metric) -> Estimate | None:
        return self.root.get(metric)


class DeltaCell(RootModel[dict[str, Delta | None]]):
    """Each rate's difference from the baseline, by key (None where a rate is unknown)."""

    model_config = ConfigDict(frozen=True)

    def get(self, metric: Metric) -> Delta | None:
        return self.root.get(metric)


class RunRef(BaseModel):
    """One run the board read."""

    model_config = ConfigDict(frozen=True)

    path: str
    designer: str
    seed: int
    package_version: str
    git_commit: str


class DesignFailures(BaseModel):
    """Design steps whose designer could not design (the previous configuration was kept).

    Counted over all of a designer's runs, so a flaky provider shows as a share of steps
    rather than as another designer's numbers under this one's name.
    """

    model_config = ConfigDict(frozen=True)

    failed: int = Field(description="Failed design steps, over the designer's runs.")
    steps: int = Field(description="Design steps, over the designer's runs.")
    reasons: dict[str, int] = Field(description="Failed steps per reason, most common first.")
    allowed: bool = Field(description="Every run was started with --allow-design-failures.")
    summary: str = Field(description="'2/19 design steps failed: rate limit'.")
    unit: Literal["design steps", "requests"] = Field(
        default="design steps",
        description="What failed: a designer's design steps, or a zero-shot policy's requests "
        "(which got no answer from its server after their retries).",
    )

    @property
    def all_failed(self) -> bool:
        return self.failed == self.steps

    @property
    def ranked(self) -> bool:
        """A designer that never designed is ranked only when its runs allowed it."""
        return self.allowed or not self.all_failed


class DesignerRow(BaseModel):
    """One designer (or, kind 'policy', one zero-shot policy): the paper's row."""

    model_config = ConfigDict(frozen=True)

    designer: str
    kind: Literal["designer", "policy"] = "designer"
    backend: str
    policy: str = Field(description="The policy trained (or evaluated), from the experiment.")
    seeds: tuple[int, ...]
    suites: dict[str, RateCell] = Field(description="'Sum' per benchmark suite.")
    overall: RateCell = Field(description="Mean of the suites' Sums (their seeds drawn jointly).")
    delta: dict[str, DeltaCell] | None = Field(
        default=None, description="Minus the baseline, per suite; None for the baseline itself."
    )
    delta_overall: DeltaCell | None = None
    design_failures: DesignFailures | None = Field(
        default=None, description="Set when some design steps failed: the row is flagged."
    )
    package_versions: tuple[str, ...] = ()
    git_commits: tuple[str, ...] = ()


class UnrankedRow(BaseModel):
    """A designer whose design steps all failed: its runs trained on round 0's configuration.

    Its rates would be the round-0 configuration's under its name, so they are left out of the
    ranked rows, deltas, details and failure shares; `note` is the line boards print for it.
    """

    model_config = ConfigDict(frozen=True)

    designer: str
    kind: Literal["designer", "policy"] = "designer"
    seeds: tuple[int, ...]
    design_failures: DesignFailures
    note: str


class DetailRow(BaseModel):
    """One value of one of the task's cuts in one suite (MAPF: a map size, a wait subset or a
    hole ratio)."""

    model_config = ConfigDict(frozen=True)

    designer: str
    suite: str
    cut: Cut
    key: str = Field(description="The cut's value (MAPF: '7', 'wr_050', '0.3').")
    instances: int = Field(description="Instances in the cut, per seed.")
    rates: RateCell = Field(
        description="Mean over the first cut's values in the cut (MAPF: its sizes) of the rate."
    )


class FailureRow(BaseModel):
    """How one designer's greedy answers on one suite failed (percent of all answers)."""

    model_config = ConfigDict(frozen=True)

    designer: str
    suite: str
    answers: int = Field(description="Answers over all seeds.")
    valid: float = Field(description="Share of valid answers, percent.")
    shares: dict[str, float] = Field(
        description="Share per failure type of the task (first failing check), percent."
    )


class CostRow(BaseModel):
    """What designing cost, per run (mean over the designer's seeds)."""

    model_config = ConfigDict(frozen=True)

    designer: str
    runs: int
    proposals: float = Field(description="Proposals per run.")
    model_calls: float = Field(description="Model calls per run (0 for rule designers).")
    prompt_tokens: float
    completion_tokens: float
    cost_usd: float | None = Field(description="Dollars per run; None where not recorded.")
    cost_note: str | None = None
    design_seconds_per_round: float | None = Field(description="Mean proposal wall time.")
    train_seconds_per_round: float | None = Field(description="Mean training wall time.")
    run_seconds: float = Field(description="Whole run, final benchmarks included.")


class SuiteInfo(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    strata: tuple[str, ...] = Field(
        description="The values of the task's first cut the suite holds (MAPF: its map sizes)."
    )
    instances: int
    suite_version: int | None = None
    content_sha256: str | None = None
    unavailable: dict[str, str] = Field(
        default_factory=dict,
        description="Rates this suite's cells cannot give (they are None), each with why, "
        "phrased to follow 'n/a: the <suites> '.",
    )


class BootstrapSpec(BaseModel):
    """How the intervals were drawn (see `leaderboards.bootstrap`)."""

    model_config = ConfigDict(frozen=True)

    resamples: int
    confidence: float
    rng_seed: int
    method: str


class ReferenceRates(BaseModel):
    """One cell of the paper's tables: "acc." and "opt." (percent)."""

    model_config = ConfigDict(frozen=True)

    valid: float = Field(description="The paper's 'acc.': the valid rate.")
    optimal_makespan: float = Field(
        description="The paper's 'opt.': makespan-optimal, as its project page defines it."
    )


class ReferenceRow(BaseModel):
    """One model row of the paper's result tables."""

    model_config = ConfigDict(frozen=True)

    label: str
    page_label: str | None = Field(
        default=None, description="The row's label on the project page, where it has one."
    )
    designer: str | None = Field(default=None, description="This project's name for it.")
    kind: Literal["designer", "policy"] = Field(
        description="designer: a designer training the 4B policy; policy: a model evaluated "
        "on the benchmarks itself (zero-shot)."
    )
    source: str = Field(description="Where the figures come from: a key of `sources`.")
    suites: dict[str, ReferenceRates] = Field(description="'Sum' per suite, as reported.")
    sizes: dict[str, dict[str, ReferenceRates]] = Field(
        default_factory=dict,
        description="Per suite, per map size ('3'..'10'): the reported cell; empty where the "
        "source gives no per-size cells.",
    )
    note: str | None = None


class ReferenceDiscrepancy(BaseModel):
    """A reported Sum that is not the mean of its row's reported cells (kept as reported)."""

    model_config = ConfigDict(frozen=True)

    row: str = Field(description="The row's label.")
    suite: str
    metric: Literal["valid", "optimal_makespan"]
    reported_sum: float
    cell_mean: float = Field(description="The mean of the row's reported per-size cells.")


class ReferenceVariantRow(BaseModel):
    model_config = ConfigDict(frozen=True)

    variant: str
    modules: str
    valid_by_subset: dict[str, float]


class ReferenceBoard(BaseModel):
    """The paper's reported figures: shown beside runs, never mixed into them."""

    model_config = ConfigDict(frozen=True)

    label: str = "reported, not reproduced"
    source: str = Field(description="Where the per-size tables come from (commit named).")
    sources: dict[str, str] = Field(description="Each row's `source`, in full.")
    answers: str
    rows: tuple[ReferenceRow, ...]
    discrepancies: tuple[ReferenceDiscrepancy, ...] = Field(
        default=(),
        description="Reported Sums that disagree with their cells' mean beyond the paper's "
        "rounding (0.01 points).",
    )
    variants: tuple[ReferenceVariantRow, ...] = ()
    notes: tuple[str, ...] = ()


class Board(BaseModel):
    """A leaderboard built from ResultRecords."""

    model_config = ConfigDict(frozen=True)

    schema_version: str = BOARD_SCHEMA_VERSION
    task: str = Field(description="The task the runs were judged on, with its version.")
    package_version: str = Field(description="The code that built the board.")
    git_commit: str
    answers: Answers = Field(description="Greedy answers, or the best of n samples.")
    baseline: str | None = Field(description="The designer deltas are against.")
    baseline_note: str | None = None
    experiment: dict[str, Any] = Field(
        description="The runs' shared experiment config (designers, seeds and options left out)."
    )
    suites: tuple[SuiteInfo, ...]
    rates: tuple[BoardRate, ...] = Field(
        description="The rates each cell holds (the task's `board_rates`): key, row label, "
        "column header, what each counts, and the optimal kind it reads; in table order."
    )
    cut_titles: dict[str, str] = Field(
        description="The task's cuts, the first the strata of a Sum, and each one's title."
    )
    bootstrap: BootstrapSpec
    runs: tuple[RunRef, ...]
    rows: tuple[DesignerRow, ...]
    unranked: tuple[UnrankedRow, ...] = Field(
        default=(), description="Designers left out of `rows`: every design step failed."
    )
    detail_cuts: tuple[Cut, ...] = Field(description="The cuts `details` holds.")
    details: tuple[DetailRow, ...]
    failures: tuple[FailureRow, ...]
    costs: tuple[CostRow, ...]
    reference: ReferenceBoard | None = None
    aggregates: tuple[Aggregate, ...] = Field(
        default=(), description="Mean and IQM per ranked row and metric (rliable)."
    )
    improvements: tuple[Improvement, ...] = Field(
        default=(), description="P(row > baseline), for every other ranked row of its kind."
    )
    profiles: tuple[Profile, ...] = ()
    curves: tuple[RoundCurve, ...] = Field(
        default=(), description="Validation rate per round, per ranked designer and metric."
    )
    controls: Controls | None = Field(
        default=None, description="Normalised scores and the sensitivity lines; None: no designers."
    )
    power: tuple[DetectableDifference, ...] = Field(
        default=(), description="Per metric: the smallest difference the board could detect."
    )

    @property
    def metrics(self) -> tuple[Metric, ...]:
        """The rates' keys, in order."""
        return tuple(r.key for r in self.rates)

    def rate(self, metric: Metric) -> BoardRate:
        return next(r for r in self.rates if r.key == metric)

    @property
    def strata_cut(self) -> Cut:
        """The cut a Sum is the mean over (MAPF: size)."""
        return next(iter(self.cut_titles))


def board_json_schema() -> dict[str, Any]:
    """The JSON schema of `Board` (shipped as leaderboards/data/board.schema.json)."""
    schema = Board.model_json_schema(mode="serialization")
    schema["$id"] = f"envdesign-bench/board/v{BOARD_SCHEMA_VERSION}"
    return schema
