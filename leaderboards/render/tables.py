"""A board as plain tables (title, columns, rows of text, notes): what every text renderer draws.

Terminal, Markdown and HTML draw the same `TextTable`s, so they always agree on content. Every
rate table has a row per designer and rate of the board's task (MAPF-FrozenLake: valid, opt.
makespan -- the paper's -- and opt. SOC), and a rate the records cannot give reads "n/a", with a
note under the table that says why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from leaderboards.board import (
    Board,
    Cut,
    DesignerRow,
    RateCell,
    ReferenceRates,
    ReferenceRow,
)
from leaderboards.design_steps import flag_note
from leaderboards.metrics import NA, unavailable_line
from leaderboards.reference import size_rows
from leaderboards.render.cells import (
    DESIGN_MARK,
    NO_INTERVAL,
    ZERO_LEGEND,
    ZERO_MARK,
    carries,
    ci_title,
    delta_text,
    estimate_text,
    has_interval,
    number,
)
from leaderboards.render.statistics import statistics_tables
from leaderboards.render.text_table import TextTable as TextTable  # re-exported
from leaderboards.seeds import seed_ids

PAPER_OPT = "opt. makespan"
"""The paper's "opt." as this project names it: makespan-optimal."""
SHORT_FAILURES = {"agent_count": "agents", "illegal_move": "illegal"}


@dataclass(frozen=True)
class BoardNote:
    """A line about the whole board, drawn above its tables (a warning stands out)."""

    text: str
    warning: bool = False


def board_notes(board: Board) -> list[BoardNote]:
    """The missing baseline; which numbers lack an interval (once, not in every cell); which
    controls are missing."""
    notes = []
    if board.baseline_note:
        notes.append(BoardNote(f"note: {board.baseline_note}", warning=True))
    single = [r.designer for r in board.rows if len(r.seeds) == 1]
    if single:
        who = "" if len(single) == len(board.rows) else f" for {', '.join(single)}"
        notes.append(BoardNote(f"{NO_INTERVAL}{who} (seed-to-seed variation needs 2+ seeds)"))
    if board.controls is not None and board.controls.note:
        notes.append(BoardNote(f"controls: {board.controls.note}"))
    return notes


def rates_note(board: Board) -> str:
    """What each of the board's rates counts, in one line."""
    return "Rates: " + "; ".join(f"{r.short} = {r.definition}" for r in board.rates) + "."


def sum_note(board: Board) -> str:
    """What a Sum and the overall column are means over."""
    first = board.strata_cut
    return (
        f"Sum = mean over {board.cut_titles[first]}s of the per-{first} rate; overall = mean "
        "over suites."
    )


def board_tables(board: Board, details: Sequence[Cut] = ()) -> list[TextTable]:
    """The board's tables: main, deltas, statistics (aggregates, controls, power), chosen
    details, failures, costs, reference."""
    tables = []
    for kind, title in (("designer", "Designers"), ("policy", "Policies (zero-shot)")):
        rows = [r for r in board.rows if r.kind == kind]
        if rows or any(u.kind == kind for u in board.unranked):
            tables.append(_main(board, rows, title, kind))
    if any(r.delta is not None for r in board.rows):
        tables.append(_deltas(board))
    tables.extend(statistics_tables(board))
    for cut in details:
        if cut not in board.detail_cuts:
            raise ValueError(f"the board was built without the {cut!r} cut; add it to details")
        tables.extend(_details(board, cut))
    tables.append(_failures(board))
    tables.append(_costs(board))
    if board.reference is not None:
        tables.append(_reference(board))
        tables.extend(_reference_details(board, details))
    return tables


def provenance_note(board: Board) -> str:
    """What the board is of and what wrote it: drawn once per rendering (at its top), never
    under a table, so a page with several Sum tables still says it once."""
    versions = sorted({r.package_version for r in board.runs})
    commits = sorted({r.git_commit[:10] for r in board.runs})
    return (
        f"{len(board.runs)} runs, {board.answers.replace('_', '-')} answers; "
        f"envdesign-bench {', '.join(versions)} ({', '.join(commits)}); "
        f"board schema {board.schema_version}"
    )


def _main(board: Board, rows: list[DesignerRow], title: str, kind: str) -> TextTable:
    suites = [s.name for s in board.suites]
    out = []
    for row in rows:
        for i, rate in enumerate(board.rates):
            first = [_name(row), row.backend, row.policy, seed_ids(row.seeds)]
            head = first if i == 0 else [""] * 4
            cells = [estimate_text(row.suites[s].get(rate.key)) for s in suites]
            out.append([*head, rate.label, *cells, estimate_text(row.overall.get(rate.key))])
    shown = has_interval(e for r in rows for cell in (*r.suites.values(), r.overall)
                         for e in (cell.get(m) for m in board.metrics))  # fmt: skip
    intervals = [f"Intervals: {board.bootstrap.method}; {board.bootstrap.resamples} resamples, "
                 f"rng seed {board.bootstrap.rng_seed}."] if shown else []  # fmt: skip
    return TextTable(
        title=ci_title(f"{title}: Sum (%), mean over seeds", shown),
        columns=["designer", "backend", "policy", "seeds", "rate", *suites, "overall"],
        rows=out,
        text_columns=5,
        notes=[
            *_design_notes(board, rows, kind),
            rates_note(board),
            *unavailable_notes(board, overall=True),
            sum_note(board),
            *intervals,
        ],
        id=f"main-{kind}",
    )


def unavailable_notes(board: Board, overall: bool = False, suite: str | None = None) -> list[str]:
    """Why some cells read n/a: one line per (suite version, missing rate), naming its suites."""
    groups: dict[str, list[str]] = {}  # reason -> suites
    for info in board.suites:
        if suite in (None, info.name):
            for reason in info.unavailable.values():
                groups.setdefault(reason, []).append(info.name)
    notes = [unavailable_line(" / ".join(names), reason) for reason, names in groups.items()]
    if notes and overall:
        notes.append(f"overall: {NA} for a rate some suite's records cannot give.")
    return notes


def _name(row: DesignerRow) -> str:
    """The designer, marked when some of its design steps failed."""
    return f"{row.designer} {DESIGN_MARK}" if row.design_failures else row.designer


def _design_notes(board: Board, rows: list[DesignerRow], kind: str) -> list[str]:
    """A line per flagged row, then one per designer left unranked for failing every step."""
    flagged = [f"{DESIGN_MARK} {flag_note(r.designer, r.design_failures)}"
               for r in rows if r.design_failures is not None]  # fmt: skip
    return [*flagged, *(u.note for u in board.unranked if u.kind == kind)]


def _deltas(board: Board) -> TextTable:
    suites = [s.name for s in board.suites]
    out = []
    shown = False
    for row in board.rows:
        if row.delta is None or row.delta_overall is None:
            continue
        valid = row.delta_overall.get("valid")
        paired = "paired" if valid is not None and valid.paired else "unpaired"
        for i, rate in enumerate(board.rates):
            head = [_name(row), paired] if i == 0 else ["", ""]
            deltas = [*(row.delta[s].get(rate.key) for s in suites),
                      row.delta_overall.get(rate.key)]  # fmt: skip
            shown = shown or has_interval(deltas)
            out.append([*head, rate.label, *(delta_text(d) for d in deltas)])
    return TextTable(
        title=ci_title(f"Minus baseline {board.baseline} (percentage points)", shown),
        columns=["designer", "pairing", "rate", *suites, "overall"],
        rows=out,
        text_columns=3,
        notes=[
            *([ZERO_LEGEND] if carries(ZERO_MARK, out) else []),
            "paired: same seeds, instance by instance; unpaired: seeds differ.",
            *unavailable_notes(board, overall=True),
        ],
        id="deltas",
    )


def _details(board: Board, cut: Cut) -> list[TextTable]:
    tables = []
    for suite in board.suites:
        cells = [d for d in board.details if d.suite == suite.name and d.cut == cut]
        keys = list(dict.fromkeys(d.key for d in cells))
        out = []
        for row in board.rows:
            mine = {d.key: d for d in cells if d.designer == row.designer}
            for i, rate in enumerate(board.rates):
                texts = [estimate_text(mine[k].rates.get(rate.key)) if k in mine else "-"
                         for k in keys]  # fmt: skip
                out.append([_name(row) if i == 0 else "", rate.label, *texts])
        first = board.strata_cut
        within = [] if cut == first else [
            f"Each cell: mean over {board.cut_titles[first]}s within the cut."]  # fmt: skip
        shown = has_interval(e for d in cells for e in (d.rates.get(m) for m in board.metrics))
        tables.append(
            TextTable(
                title=ci_title(f"{suite.name} by {board.cut_titles[cut]}: rate (%)", shown),
                columns=["designer", "rate", *keys],
                rows=out,
                text_columns=2,
                notes=[*within, *unavailable_notes(board, suite=suite.name)],
                id=f"detail-{suite.name}-{cut}",
            )
        )
    return tables


def _failures(board: Board) -> TextTable:
    types = list(board.failures[0].shares) if board.failures else []
    rows = [[f.designer, f.suite, number(f.valid), *(number(f.shares[t]) for t in types)]
            for f in board.failures]  # fmt: skip
    return TextTable(
        title="How greedy answers ended (% of answers, seeds pooled)",
        columns=["designer", "suite", "valid", *(SHORT_FAILURES.get(t, t) for t in types)],
        rows=rows,
        text_columns=2,
        notes=["Each failed answer counts under its first failing check."],
        id="failures",
    )


def _costs(board: Board) -> TextTable:
    rows = []
    for c in board.costs:
        dollars = f"{c.cost_usd:.4f}" if c.cost_usd is not None else (c.cost_note or "-")
        tokens = f"{number(c.prompt_tokens, 0)} / {number(c.completion_tokens, 0)}"
        rows.append([c.designer, str(c.runs), number(c.proposals), number(c.model_calls), tokens,
                     dollars, number(c.design_seconds_per_round, 2),
                     number(c.train_seconds_per_round, 2), number(c.run_seconds, 1)])  # fmt: skip
    return TextTable(
        title="Designer cost (per run, mean over seeds)",
        columns=["designer", "runs", "proposals", "calls", "tokens in / out", "USD",
                 "design s/rnd", "train s/rnd", "run s"],
        rows=rows,
        notes=["USD only where every model call reported a price; s/rnd: seconds per round."],
        id="costs",
    )  # fmt: skip


def _reference(board: Board) -> TextTable:
    ref = board.reference
    assert ref is not None
    suites = list(dict.fromkeys(s for r in ref.rows for s in r.suites))
    rows = []
    for r in ref.rows:
        cells = [_paper(r.suites[s]) if s in r.suites else "-" for s in suites]
        rows.append([r.label, r.designer or "-", r.kind, r.source, *cells])
    mismatched = [f"{d.row} {d.suite} {d.metric}: Sum {d.reported_sum:.2f}, its cells' mean "
                  f"{d.cell_mean:.2f}" for d in ref.discrepancies]  # fmt: skip
    return TextTable(
        title=f"The paper's figures ({ref.label}): Sum valid / {PAPER_OPT} (%)",
        columns=["row", "designer", "kind", "from", *suites],
        rows=rows,
        text_columns=4,
        notes=[
            f"The paper's opt. is makespan-optimal: compare it with "
            f"{board.rate('optimal_makespan').label}, "
            "not with opt. SOC.",
            *(f"from {key}: {text}." for key, text in ref.sources.items()),
            *([f"Sums that are not their cells' mean (kept as reported): {'; '.join(mismatched)}."]
              if mismatched else []),
            "kind: designer = trains the 4B policy; policy = the model itself answers (zero-shot).",
            *_row_notes(ref.rows),
            *ref.notes,
        ],
        id="reference",
    )  # fmt: skip


def _row_notes(rows: Sequence[ReferenceRow]) -> list[str]:
    """Each distinct row note once, after the rows it is about."""
    by_note: dict[str, list[str]] = {}
    for r in rows:
        if r.note:
            by_note.setdefault(r.note, []).append(r.label)
    return [f"{', '.join(labels)}: {note}." for note, labels in by_note.items()]


def _paper(rates: ReferenceRates) -> str:
    return f"{rates.valid:.2f} / {rates.optimal_makespan:.2f}"


def _reference_details(board: Board, details: Sequence[Cut]) -> list[TextTable]:
    """Per suite, our per-size rates beside the paper's (size details); the paper's context
    variants (subset details)."""
    ref = board.reference
    assert ref is not None
    tables: list[TextTable] = []
    if "size" in details:
        tables.extend(_beside_paper(board, suite.name) for suite in board.suites)
    if "subset" in details and ref.variants:
        subsets = list(ref.variants[0].valid_by_subset)
        rows = [[v.variant, v.modules, *(f"{v.valid_by_subset[s]:.1f}" for s in subsets)]
                for v in ref.variants]  # fmt: skip
        tables.append(TextTable(
            title=f"The paper's context variants by wait subset ({ref.label}): valid (%)",
            columns=["variant", "context", *subsets], rows=rows, text_columns=2,
            id="reference-subset",
        ))  # fmt: skip
    return tables


def _beside_paper(board: Board, suite: str) -> TextTable:
    """One suite by map size: this board's rows (means over seeds), then the paper's rows."""
    ref = board.reference
    assert ref is not None
    info = next(s for s in board.suites if s.name == suite)
    paper = size_rows(ref, suite)
    keys = list(dict.fromkeys([*info.strata,
                               *(k for r in paper for k in r.sizes[suite])]))  # fmt: skip
    out = []
    for row in board.rows:
        mine = {d.key: d.rates for d in board.details
                if d.designer == row.designer and d.suite == suite and d.cut == "size"}  # fmt: skip
        cells = [_ours(mine[k]) if k in mine else "-" for k in keys]
        out.append([_name(row), "this board", *cells, _ours(row.suites[suite])])
    for r in paper:
        cells = [_paper(r.sizes[suite][k]) if k in r.sizes[suite] else "-" for k in keys]
        out.append([r.label, "paper", *cells, _paper(r.suites[suite])])
    left_out = [r.label for r in ref.rows if suite in r.suites and suite not in r.sizes]
    sized = [d for d in board.details if d.suite == suite and d.cut == "size"]
    intervals = (f"; intervals in the '{suite} by map size' table"
                 if has_interval(e for d in sized for e in (d.rates.get(m) for m in board.metrics))
                 else "")  # fmt: skip
    return TextTable(
        title=f"{suite} by map size beside the paper's ({ref.label}): valid / {PAPER_OPT} (%)",
        columns=["row", "from", *keys, "Sum"],
        rows=out,
        text_columns=2,
        notes=[
            f"Each cell: valid / {PAPER_OPT} (the paper's opt.); this board: "
            f"mean over seeds ({board.answers.replace('_', '-')} answers{intervals}); paper: "
            "as its project page reports it.",
            *unavailable_notes(board, suite=suite),
            *([f"Paper rows with Sums only (no per-size cells on the project page): "
               f"{', '.join(left_out)}."] if left_out else []),
            "The paper trains a 4B model on GPUs: its rows are reported, not reproduced.",
        ],
        id=f"reference-size-{suite}",
    )  # fmt: skip


def _ours(cell: RateCell) -> str:
    valid, makespan = cell.get("valid"), cell.get("optimal_makespan")
    mk = NA if makespan is None else f"{makespan.mean:.1f}"
    return f"{NA if valid is None else f'{valid.mean:.1f}'} / {mk}"
