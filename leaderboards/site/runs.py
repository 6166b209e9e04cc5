"""What a run page shows: its rounds, the designer's proposals and transcripts, its raw files.

Everything here is plain data for the templates; model text stays text (the templates
autoescape it), so a transcript can never add markup or scripts to a page.

Rounds are numbered for a reader as `harness run` and `harness runs show` number them, from 1
(`round 1/20`); only the run directory's names (`round-000`) and the records count from 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from designers import Proposal
from leaderboards.board import Answers, DesignFailures
from leaderboards.bundles.sealed import RAW_FILES, SealError, run_file_names, sealed_file
from leaderboards.curves import report_rates
from leaderboards.design_steps import design_failures
from leaderboards.metrics import Metric
from leaderboards.readers import LoadedRun, RunSet, SkippedRun
from leaderboards.score_arrays import suite_sums
from leaderboards.site.changes import ChangesTable, changes_table, projection_rows
from run_records import CONFIG_FILE, RESULT_FILE, ResultRecord, RoundResult, safe_name
from tasks import Task

MAX_RAW_BYTES = 32 * 1024 * 1024
"""Raw files above this size are listed but not copied into the site (checkpoints never are)."""


@dataclass(frozen=True)
class RawFile:
    label: str
    href: str | None
    """Relative to the site root; None when the file was not copied (`note` says why)."""
    note: str = ""


Rates = dict[Metric, float | None]
"""Percent per rate; None where the record cannot give it (the page shows n/a)."""


def round_label(index: int, total: int) -> str:
    """`1/20` for the record's round 0 of 20: as `harness runs show` labels rounds."""
    return f"{index + 1}/{total}"


@dataclass(frozen=True)
class RoundView:
    round: RoundResult
    number: int
    """From 1, as the CLI counts rounds: the record's (and directory's) index plus one."""
    label: str
    """`number/total` (`round_label`)."""
    rates: Rates
    """The round's validation rates (optimal ones None in reports that predate them)."""
    answers: int
    proposal: Proposal | None
    changes: ChangesTable
    """The proposal's changes asked, a row per arm of the task (empty without a proposal)."""
    projections: list[tuple[str, str, str, str]]
    """What projection changed: (field, before, after, reason), numbers rounded."""
    task: Task[Any, Any]
    """The run's task, which writes its configurations as YAML."""
    config_text: str | None = None
    """The round's `config.yaml` as the run wrote it, once copied into the site (sealed: the
    bytes its round record vouches for); None where it was not."""

    @property
    def config_yaml(self) -> str:
        """The configuration trained on, as YAML: the run's own file where the site holds it
        (no YAML written again for every round of every run), else as the task writes it."""
        if self.config_text is not None:
            return self.config_text
        return self.task.config_yaml(self.round.config)

    @property
    def proposal_yaml(self) -> str:
        """The configuration the designer proposed, after projection, as the task writes it."""
        return "" if self.proposal is None else self.task.config_yaml(self.proposal.config)

    @property
    def generation_text(self) -> str:
        """What the round's generation reached of what was asked, as the task describes it
        (and as LLM designers read it), shortfalls included."""
        return self.task.describe_stats(self.round.stats)


@dataclass
class RunView:
    """One run's page."""

    run: LoadedRun
    slug: str
    page: str
    plot: str | None
    rounds: list[RoundView]
    sums: list[tuple[str, Rates]]
    """Per suite: this run's Sum of every rate."""
    design_failures: DesignFailures | None = None
    """This run's failed design steps (None when every step designed)."""
    ranked: bool = True
    """False when the board left the run's designer unranked (all its design steps failed)."""
    files: list[RawFile] = field(default_factory=list)

    @property
    def record(self) -> ResultRecord:
        return self.run.record

    @property
    def title(self) -> str:
        return f"{self.record.designer}, seed {self.record.seed}"

    @property
    def start_text(self) -> str:
        """Where the configuration round 1 trained on came from (`initial_source`)."""
        if self.record.initial_source == "designer":
            return "the designer's own"
        return f"shared: every designer of seed {self.record.seed} starts from it"

    @property
    def design_text(self) -> str:
        """`0/19 failed`, `2/19 design steps failed: rate limit`, or `-` (no design steps)."""
        steps = self.record.design_steps()
        if not steps:
            return "-"
        if self.design_failures is None:
            return f"0/{steps} failed"
        return self.design_failures.summary


def designer_slugs(keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """A file-name-safe slug per (kind, designer): `llm:openai/gpt-4o` -> `llm_openai_gpt-4o`.

    Zero-shot policies get a `policy-` prefix; names that collide once made safe (or differ only
    in case) get a numbered suffix.
    """
    slugs: dict[tuple[str, str], str] = {}
    taken: set[str] = set()
    for kind, name in sorted(set(keys)):
        base = safe_name(name).strip("._") or "designer"
        base = base if kind == "designer" else f"policy-{base}"
        slug, n = base, 2
        while slug.lower() in taken:
            slug, n = f"{base}-{n}", n + 1
        taken.add(slug.lower())
        slugs[kind, name] = slug
    return slugs


def run_view(run: LoadedRun, slug: str, answers_best_of: bool, ranked: bool = True) -> RunView:
    record = run.record
    run_slug = f"{slug}-seed-{record.seed}"
    rounds = [
        RoundView(
            round=r,
            number=r.round + 1,
            label=round_label(r.round, len(record.rounds)),
            rates={m: _pct(v) for m, v in report_rates(run.task, r.validation).items()},
            answers=run.task.rates(r.validation).overall.n,
            proposal=r.proposal,
            changes=changes_table(run.task, r.proposal.changes if r.proposal else {}),
            projections=projection_rows(r.proposal.notes if r.proposal else ()),
            task=run.task,
        )
        for r in record.rounds
    ]
    answers: Answers = "best_of" if answers_best_of else "greedy"
    sums = [
        (name, {m: _pct(v) for m, v in suite_sums(run.task, suite, answers).items()})
        for name, suite in record.suites.items()
    ]
    return RunView(
        run=run,
        slug=run_slug,
        page=f"runs/{run_slug}.html",
        plot=f"plots/trajectory-{run_slug}.svg" if record.rounds else None,
        rounds=rounds,
        sums=sums,
        design_failures=design_failures([record]),
        ranked=ranked,
    )


def _pct(rate: float | None) -> float | None:
    return None if rate is None else 100 * rate


def sealed_runs(runs: Sequence[LoadedRun]) -> tuple[RunSet, tuple[str, ...]]:
    """The runs whose `result.json` is sealed (`leaderboards.bundles.sealed`: the record a
    board shows must be the run's own file, not one a link points to), and a line for each
    run left out, which also joins the set's skipped runs for the index to list."""
    kept: list[LoadedRun] = []
    skipped = list(runs.skipped) if isinstance(runs, RunSet) else []
    lines: list[str] = []
    for run in runs:
        try:
            sealed_file(run, RESULT_FILE)
        except SealError as err:
            line = f"{err}; the run is left out of the site: put back the file the run wrote"
            skipped.append(SkippedRun(run.path, "unreadable", line))
            lines.append(line)
            continue
        kept.append(run)
    return RunSet(tuple(kept), tuple(skipped)), tuple(lines)


def copy_raw_files(view: RunView, site: Path) -> list[str]:
    """Copy the run's small files into `site/files/<run>/`, keeping the run directory's layout,
    each only once sealed (`leaderboards.bundles.sealed`); a line for each file left out for
    not being sealed, which its page notes too."""
    target = f"files/{view.slug}"
    withheld = []
    for name in run_file_names(view.run):
        try:
            data = sealed_file(view.run, name)
        except SealError as err:
            view.files.append(RawFile(name, None, f"not copied: {err.reason}"))
            withheld.append(f"{err}; not copied into the site")
            continue
        if data is None:
            if name in RAW_FILES:
                view.files.append(RawFile(name, None, "not in the run directory"))
            continue
        if len(data) > MAX_RAW_BYTES:
            view.files.append(RawFile(name, None, f"not copied ({len(data) / 2**20:.0f} MiB)"))
            continue
        destination = site / target / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_bytes(data)
        view.files.append(RawFile(name, f"{target}/{name}"))
        _keep_config_text(view, name, data)
    return withheld


def _keep_config_text(view: RunView, name: str, data: bytes) -> None:
    """Give the round whose `config.yaml` `name` is the text just copied (`config_yaml`)."""
    folder, _, base = name.partition("/")
    if base != CONFIG_FILE or not folder.startswith("round-"):
        return
    for i, rv in enumerate(view.rounds):
        if f"round-{rv.round.round:03d}" == folder:
            view.rounds[i] = replace(rv, config_text=data.decode("utf-8"))
