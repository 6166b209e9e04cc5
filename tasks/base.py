"""What a task is to the harness: the `Task` protocol and the values it hands back.

A task is what a policy learns and is judged on. It owns everything the round loop, the
designers and the boards must not know of a domain: the configuration a designer may change
(and its bounds), how a designer's draft becomes a valid configuration, seeded generation,
the fixed suites, the prompt, judging an answer, the reward, and how a configuration and its
failures read to an LLM designer. Everything else -- training, evaluation, records, boards --
sees items only as opaque values passed back to the task that made them, so a second family
of tasks comes in as one package and one entry-point line.

Values crossing the seam are small frozen dataclasses (`Judgement` is built once per rollout
in training), not pydantic models; the configuration and the generator's statistics are the
task's own pydantic models, so records store and validate them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from math import fsum
from typing import Any, Generic, Literal, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel

from envdesign_common.projection_notes import ProjectionNote

__all__ = [
    "BoardRate",
    "Generated",
    "ItemCodec",
    "Judgement",
    "Knob",
    "Projected",
    "Rates",
    "ReportRates",
    "Suite",
    "SuiteItem",
    "Task",
    "TaskSpec",
    "VerdictTable",
    "blank_rates",
    "mean_rates",
    "missing_members",
]

ConfigT = TypeVar("ConfigT", bound=BaseModel)
ItemT = TypeVar("ItemT")
StatsT = TypeVar("StatsT", bound=BaseModel)


def as_written(key: Any) -> Any:
    """A table key read as it was written (a knob's default `read_key`)."""
    return key


@dataclass(frozen=True)
class Knob:
    """One value of the configuration a designer may change, and the bounds projection keeps
    it in. `path` is dotted as a designer writes it; ``*`` stands for every key of a table
    (``sizes.*.hole_ratio``). A share (``share=True``) is one of a group of values that
    projection renormalises to sum to 1, so its bounds hold before renormalising.

    Two declarations let a teacher (`learning-progress`, `regret`) work on a task it was not
    written for. A share knob whose ``*`` keys are the values of the task's first cut names
    that cut (``cut="size"``, with `cut_value` turning a key into the value the reports use:
    ``3 -> "3x3"``): each value is an *arm* whose budget is its share. A knob that makes an
    arm's items harder says which way (``harder="up"``: a higher value is harder); the
    teachers move the ones beside an arm's share (same parent path) by their rules."""

    path: str
    low: float
    high: float
    description: str
    integer: bool = False
    share: bool = False
    harder: Literal["up", "down"] | None = None
    cut: str | None = None
    cut_value: Callable[[Any], str] = str
    read_key: Callable[[Any], Any] = as_written
    """Reads a ``*`` key as a designer may write it into the configuration's own key
    (``"7x7" -> 7``), raising ValueError for one that names no value: how a page lays a change
    set's entries out per arm."""

    @property
    def bounds_text(self) -> str:
        """Its bounds and kind in one phrase (``0..1 (share, renormalised, one per size)``), as
        `harness tasks show` and the documentation's reference list it."""
        kind = "integer" if self.integer else "share, renormalised" if self.share else "number"
        kind += f", one per {self.cut}" if self.cut else ""
        kind += f", harder {self.harder}" if self.harder else ""
        return f"{self.low:g}..{self.high:g} ({kind})"


@dataclass(frozen=True)
class Projected(Generic[ConfigT]):
    """A draft made valid: the configuration and a note per value projection changed."""

    config: ConfigT
    notes: tuple[ProjectionNote, ...] = ()


@dataclass(frozen=True)
class Generated(Generic[ItemT, StatsT]):
    """One round's items and what generation achieved against what was asked (the task's own
    statistics model; a designer sees it as environment statistics)."""

    items: tuple[ItemT, ...]
    stats: StatsT


@dataclass(frozen=True, slots=True)
class Judgement:
    """One answer judged.

    `valid` means the answer is correct by the task's rules; `score` in [0, 1] is the task's
    own grade (1.0 for a valid answer of a pass/fail task; partial credit where the task's
    scorer gives it). `failure` is the first broken rule, one of the task's `failure_types`,
    None when valid. `optimal` maps each of the task's `optimal_kinds` to whether the answer
    is also optimal in that sense (None where the item carries no known optimum).
    """

    valid: bool
    score: float
    failure: str | None
    optimal: Mapping[str, bool | None] = field(default_factory=dict)
    detail: str = ""


@dataclass(frozen=True)
class Rates:
    """A group of answers in the numbers every summary shows alike (progress lines, `runs
    show`, the comparison table, training logs): how many, the share valid, the mean score,
    and the share optimal in each of the task's senses -- named as summaries show them
    (``opt. <name>``; the task's `optimal_kinds`, cased as the task writes them) and in the
    order a reader should see them (MAPF-FrozenLake: makespan, the paper's, then SOC), None
    where the items lacked that optimum, so no other rate ever stands in for it."""

    n: int
    valid_rate: float
    score: float
    optimal: Mapping[str, float | None] = field(default_factory=dict)


@dataclass(frozen=True)
class ReportRates:
    """A report's rates overall and per value of the task's first cut (MAPF: map size), in
    the task's order of values."""

    overall: Rates
    by_first_cut: Mapping[str, Rates] = field(default_factory=dict)

    def sum(self) -> Rates:
        """The paper's "Sum": the mean over the first cut's values of each rate, so every value
        weighs alike whatever its count (unknown where any value's is; nothing counted: zero,
        with every optimum unknown)."""
        groups = list(self.by_first_cut.values())
        return mean_rates(groups) if groups else blank_rates(self.overall.optimal)


def blank_rates(kinds: Iterable[str]) -> Rates:
    """No answers: rates of zero, each optimum unknown."""
    return Rates(n=0, valid_rate=0.0, score=0.0, optimal=dict.fromkeys(kinds))


def mean_rates(groups: Sequence[Rates]) -> Rates:
    """The mean of each rate over `groups` (non-empty; e.g. seeds, or a cut's values); an
    optimum is unknown where any group's is."""
    if not groups:
        raise ValueError("mean_rates needs at least one group")

    kinds = list(groups[0].optimal)
    return Rates(
        n=sum(g.n for g in groups),
        valid_rate=fsum(g.valid_rate for g in groups) / len(groups),
        score=fsum(g.score for g in groups) / len(groups),
        optimal={k: _known_mean([g.optimal.get(k) for g in groups]) for k in kinds},
    )


def _known_mean(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return fsum(known) / len(known) if len(known) == len(values) else None


@dataclass(frozen=True)
class BoardRate:
    """A 0/1 rate boards rank designers by. `key` names it in a board's JSON and CSV
    (``valid``, ``optimal_<kind>``); `label` heads a table's row, `short` a column; `definition`
    says what it counts. `optimal` is the optimal kind it reads (None: validity)."""

    key: str
    label: str
    short: str
    definition: str
    optimal: str | None = None


@dataclass(frozen=True)
class VerdictTable:
    """A suite result item by item, as boards cut it.

    `ids` in id order, so the runs of one benchmark line up item by item; `cuts` each of the
    task's cuts' value per item (the first cut is the board's strata: a Sum is the mean over
    its values); `flags` per kind of answer (``greedy``, ``best_of``) a 0/1 flag per item for
    every rate of `Task.board_rates` the result can give. A rate it cannot give (its items carry
    no such optimum) is absent from `flags` and in `unavailable` with why, phrased to follow
    "n/a: the <suites> " -- boards show n/a, never zeros. `failures`: each item's greedy failure
    type (None when valid)."""

    ids: tuple[str, ...]
    cuts: Mapping[str, tuple[str, ...]]
    flags: Mapping[str, Mapping[str, tuple[bool, ...]]]
    failures: tuple[str | None, ...]
    unavailable: Mapping[str, str] = field(default_factory=dict)
    version: int | None = None
    checksum: str | None = None


@dataclass(frozen=True)
class SuiteItem(Generic[ItemT]):
    """One item of a fixed suite and the value of each of the task's cuts it counts under."""

    id: str
    item: ItemT
    cuts: Mapping[str, str]


@dataclass(frozen=True)
class Suite(Generic[ItemT]):
    """A fixed, versioned evaluation set. `checksum` is the one the task ships (its manifest);
    `Task.checksum` recomputes it from the items, so a changed suite cannot pass as the old."""

    name: str
    version: int
    items: tuple[SuiteItem[ItemT], ...]
    checksum: str


@runtime_checkable
class Task(Protocol[ConfigT, ItemT]):
    """A task family at one version, built with its settings."""

    id: str
    """Versioned, Gymnasium-style: ``mapf-frozenlake-v2``. Records and boards carry it; a board
    never pools runs of two ids."""
    description: str
    config_model: type[ConfigT]
    stats_model: type[BaseModel]
    """What `generate` reports it achieved (`Generated.stats`)."""
    report_model: type[BaseModel]
    """What `report` folds validation answers into: what designers read after every round."""
    result_model: type[BaseModel]
    """What `score_suite` gives: a suite's result as records keep it, for boards to rank."""
    cuts: tuple[str, ...]
    """What boards group results by (``size``, ``subset``, ``hole`` for MAPF)."""
    failure_types: tuple[str, ...]
    """The task's taxonomy of wrong answers, in the order its checks run."""
    optimal_kinds: tuple[str, ...]
    """The senses in which a valid answer can be optimal; empty for a task without optima."""
    reward_bounds: tuple[float, float]
    suite_names: tuple[str, ...]
    validation_suite: str
    """The suite a run evaluates after every round unless its experiment names another."""
    benchmark_suites: tuple[str, ...]
    """The suites a run is scored on at the end unless its experiment names others."""

    def initial_config(self, seed: int, samples: int) -> ConfigT:
        """Round 0's shared configuration for seed `seed`, with `samples` items a round."""
        ...

    def settled(self, config: ConfigT, fixed_from: ConfigT) -> ConfigT:
        """`config` with every value a designer may not change taken from `fixed_from`: the
        sample budget, and whatever the task's settings hold fixed (MAPF's agent count and
        objective). The loop settles each round 0 it did not make itself (a given one, a
        designer's own) on the task's own start, and `check_designer` holds a proposal to
        being settled on the configuration it was asked about."""
        ...

    def config_yaml(self, config: ConfigT) -> str:
        """`config` as a run writes it (``round-NNN/config.yaml``) and an experiment's
        ``initial.config`` reads it back."""
        ...

    def knobs(self) -> tuple[Knob, ...]:
        """What a designer may change, with bounds (task-generic designers read only this)."""
        ...

    def project(self, current: ConfigT, draft: Mapping[str, Any] | None) -> Projected[ConfigT]:
        """`draft` (only the changes) merged onto `current` and projected onto valid
        configurations; raises `envdesign_common.ConfigError` for a draft that cannot be read."""
        ...

    def generate(
        self, config: ConfigT, seed: int, *, workers: int | None = None
    ) -> Generated[ItemT, Any]:
        """The round's items: the same seed gives identical items."""
        ...

    def suite(self, name: str) -> Suite[ItemT]:
        """A fixed suite by name; KeyError naming the suites there are."""
        ...

    def checksum(self, suite: Suite[ItemT]) -> str:
        """The checksum of `suite`'s content, recomputed from its items as the task's shipped
        checksums were computed."""
        ...

    def prompt(self, item: ItemT) -> list[dict[str, str]]:
        """Chat messages (system, user) asking for the item's answer."""
        ...

    def reference_answer(self, item: ItemT) -> str | None:
        """A known-good answer, where the item carries one."""
        ...

    def judge(self, item: ItemT, answer: str) -> Judgement: ...

    def report(self, items: Sequence[SuiteItem[ItemT]], answers: Sequence[str]) -> BaseModel:
        """One greedy answer per item judged and folded into a `report_model` (rates overall and
        per cut, failures by type)."""
        ...

    def score_suite(
        self,
        suite: Suite[ItemT],
        greedy: Sequence[str],
        sampled: Sequence[Sequence[str]],
        best_of: int,
    ) -> BaseModel:
        """A `result_model` of `suite` (whole or a stratified subset) from one greedy answer
        and `best_of` samples per item: its verdicts, each with its cut values, and their
        reports. Records store it; re-scoring the stored answers must give it again."""
        ...

    def rates(self, report: BaseModel) -> ReportRates:
        """A `report_model`'s greedy rates, overall and per value of the first cut: what
        progress lines, `runs show` and training logs show of a round's validation."""
        ...

    def suite_rates(self, result: BaseModel, *, best_of: bool = False) -> ReportRates:
        """A `result_model`'s rates (greedy, or best-of-n), overall and per value of the first
        cut; their `sum()` is the suite's headline in the comparison table."""
        ...

    @property
    def reward_optimum(self) -> str | None:
        """The optimal kind the reward pays for, as `Rates.optimal` names it; None where the
        reward pays validity alone. Teachers read how well an arm is solved in this sense."""
        ...

    @property
    def board_rates(self) -> tuple[BoardRate, ...]:
        """The 0/1 rates boards show, in the order they draw them (validity first)."""
        ...

    @property
    def cut_titles(self) -> Mapping[str, str]:
        """How a board's tables title each cut (``size``: ``map size``)."""
        ...

    def result_problem(self, result: BaseModel) -> str | None:
        """The first way a `result_model` contradicts itself, as a phrase about the suite (a
        verdict lacks a flag its suite version carries, a stored count is not what its verdicts
        give); None when it holds together. Boards refuse such a record."""
        ...

    def verdict_table(self, result: BaseModel) -> VerdictTable:
        """A `result_model` item by item, as boards cut it (a result `result_problem` passed;
        ValueError for one it cannot read)."""
        ...

    def reward(
        self, item: ItemT, answer: str, *, valid_rate: float = 0.0, n_tokens: int | None = None
    ) -> float:
        """The training reward, within `reward_bounds`; `valid_rate` is the trainer's running
        valid rate (a task whose reward shifts weight as the policy improves reads it)."""
        ...

    def accuracy_weight(self, valid_rate: float) -> float:
        """The share of `reward` that pays correctness at this running valid rate, in [0, 1]:
        1.0 for a reward that pays correctness alone. Round records keep it beside the rate."""
        ...

    def describe_config(self, config: ConfigT) -> str:
        """A configuration as an LLM designer reads it: compact, deterministic text."""
        ...

    def describe_stats(self, stats: BaseModel) -> str:
        """What generation achieved against what was asked (`Generated.stats`), as text."""
        ...

    def describe_report(self, report: BaseModel) -> str:
        """A `report_model`'s breakdown as an LLM designer reads it after a round: rates overall
        and per value of the cuts, and failures by type (Markdown, deterministic)."""
        ...

    def report_headline(self, report: BaseModel) -> str:
        """A report in two lines for a designer's history of earlier rounds: its overall rates,
        then its most frequent failure types."""
        ...


def missing_members(value: object) -> list[str]:
    """The members of the `Task` protocol that `value` lacks, sorted."""
    members = [m for m in dir(Task) if not m.startswith("_")] + list(Task.__annotations__)
    return sorted({m for m in members if not hasattr(value, m)})


@runtime_checkable
class ItemCodec(Protocol[ItemT]):
    """A task whose items travel as text, declared beside `Task` by a task that can.

    A trainer that scores answers in processes of its own -- verl's reward workers, which load
    one file by path and see a dataset row, not the harness's objects -- rebuilds each item
    from the text its row carries. The text must rebuild an equal item (`check_task` checks
    it), and decoding is not trusted: text that is not an item raises ValueError."""

    def encode_item(self, item: ItemT) -> str:
        """`item` as text `decode_item` rebuilds it from; the same item gives the same text."""
        ...

    def decode_item(self, text: str) -> ItemT:
        """The item `text` encodes; ValueError for text that encodes none."""
        ...


@dataclass(frozen=True)
class TaskSpec:
    """A task's declaration, the value of its entry point: light to import (`build` imports the
    task's own packages), with the typed settings the experiment's section is checked against."""

    id: str
    description: str
    build: Callable[[Any], Task[Any, Any]]
    """``build(settings)``: the task, given its settings as an instance of `settings` (or None
    when it takes none); `tasks.create_task` validates them first, so a build never sees
    anything else."""
    settings: type[BaseModel] | None = None
    """The model of the experiment's task section, filled with its defaults when missing;
    None: the task takes no settings."""
    extra: str | None = None
    """The pip extra its build needs (``reasoning-gym``), named when the import fails."""
