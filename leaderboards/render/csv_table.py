"""The board as CSV: one tidy row per number, for spreadsheets and pandas."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import Any

from leaderboards.board import Board, Delta, DesignFailures, Estimate, SuiteInfo
from leaderboards.metrics import NA, unavailable_line
from leaderboards.render.sensitivity import sensitivity_lines

FIELDS = (
    "section", "designer", "kind", "backend", "policy", "suite", "cut", "key", "metric",
    "value", "ci_low", "ci_high", "seeds", "note", "baseline", "delta", "delta_low",
    "delta_high", "delta_includes_zero", "paired",
)  # fmt: skip


def render_csv(board: Board) -> str:
    """Rates (`section` rate / detail), design failures, answer failures, costs, reported
    figures, then the statistics.

    Rates have `metric` one of the board's rates (MAPF-FrozenLake: valid, optimal_makespan --
    the paper's "opt." -- or optimal_soc); one the records cannot give has an empty `value` and
    `note` saying why (n/a). A `design` row exists
    only for a designer with failed design steps: `failed_steps` (per reason in `key`, and in
    total), `design_steps` and `ranked`, the flag's text in `note`. `reference` rows hold the
    paper's figures: Sums (`cut` empty) and per-size cells (`cut` size, `key` the size), with
    metrics valid and optimal_makespan.

    Statistics: `aggregate` (`key` iqm or mean, `seeds` the runs, `cut` the cells),
    `improvement` (P(designer > `baseline`) in `value`), `profile` (`key` tau in percent,
    `value` the share 0-1), `curve` (`key` the round, `value` the validation rate),
    `normalised` (random = 0, matched = 1), `sensitivity` (`designer` minus `baseline` in the
    delta columns: matched - random, harder - random, then matched - harder), `controls` (what is
    missing, in `note`) and `power` (`key` detectable, seed_sd or instance_sd, points, and
    unpaired_detectable where `paired`; `paired` says which formula, `baseline` what the
    paired differences are against).
    """
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=FIELDS, lineterminator="\n")
    writer.writeheader()
    for row in _rows(board):
        writer.writerow(row)
    return buffer.getvalue()


def _rows(board: Board) -> Iterator[dict[str, Any]]:
    info = {s.name: s for s in board.suites}
    for row in board.rows:
        who = {"designer": row.designer, "kind": row.kind, "backend": row.backend,
               "policy": row.policy}  # fmt: skip
        cells = [*((s, row.suites[s], (row.delta or {}).get(s)) for s in row.suites),
                 ("overall", row.overall, row.delta_overall)]  # fmt: skip
        for suite, cell, delta in cells:
            for metric in board.metrics:
                d = delta.get(metric) if delta is not None else None
                why = _why(list(info.values()) if suite == "overall" else [info[suite]], metric)
                yield {"section": "rate", **who, "suite": suite, "metric": metric,
                       **_estimate(cell.get(metric), why), **_delta(board, d)}  # fmt: skip
    for detail in board.details:
        for metric in board.metrics:
            why = _why([info[detail.suite]], metric)
            yield {"section": "detail", "designer": detail.designer, "suite": detail.suite,
                   "cut": detail.cut, "key": detail.key, "metric": metric,
                   **_estimate(detail.rates.get(metric), why)}  # fmt: skip
    yield from _design(board)
    for f in board.failures:
        for share_of, share in {"valid": f.valid, **f.shares}.items():
            yield {"section": "failure", "designer": f.designer, "suite": f.suite,
                   "metric": share_of, "value": share}  # fmt: skip
    for c in board.costs:
        for field in ("proposals", "model_calls", "prompt_tokens", "completion_tokens",
                       "cost_usd", "design_seconds_per_round", "train_seconds_per_round",
                       "run_seconds"):  # fmt: skip
            note = c.cost_note if field == "cost_usd" else None
            yield {"section": "cost", "designer": c.designer, "metric": field,
                   "value": getattr(c, field), "note": note}  # fmt: skip
    yield from _reference(board)
    yield from _statistics(board)


def _statistics(board: Board) -> Iterator[dict[str, Any]]:
    """rliable aggregates and profiles, P(improvement), curves, controls, power."""
    for a in board.aggregates:
        for key, e in (("iqm", a.iqm), ("mean", a.mean)):
            yield {"section": "aggregate", "designer": a.designer, "kind": a.kind,
                   "metric": a.metric, "key": key, **_estimate(e, NA),
                   "cut": f"{a.cells} cells"}  # fmt: skip
    for i in board.improvements:
        yield {"section": "improvement", "designer": i.designer, "metric": i.metric,
               "baseline": i.baseline, "value": i.probability, "ci_low": i.low,
               "ci_high": i.high, "seeds": i.runs, "note": i.note}  # fmt: skip
    for p in board.profiles:
        for k, tau in enumerate(p.taus):
            band = {} if p.low is None or p.high is None else {"ci_low": p.low[k],
                                                               "ci_high": p.high[k]}  # fmt: skip
            yield {"section": "profile", "designer": p.designer, "kind": p.kind,
                   "metric": p.metric, "key": f"{tau:g}", "value": p.share[k], **band}  # fmt: skip
    for c in board.curves:
        for k, round_ in enumerate(c.rounds):
            band = {} if c.low is None or c.high is None else {"ci_low": c.low[k],
                                                               "ci_high": c.high[k]}  # fmt: skip
            yield {"section": "curve", "designer": c.designer, "metric": c.metric,
                   "key": round_, "value": c.mean[k], "seeds": c.seeds, **band}  # fmt: skip
    yield from _controls(board)
    for d in board.power:
        for key, value in (("detectable", d.detectable), ("seed_sd", d.seed_sd),
                           ("instance_sd", d.instance_sd),
                           ("unpaired_detectable", d.unpaired_detectable)):  # fmt: skip
            if key == "unpaired_detectable" and not d.paired:
                continue
            yield {"section": "power", "metric": d.metric, "key": key, "value": value,
                   "seeds": d.seeds, "paired": d.paired, "baseline": d.against,
                   "note": d.note}  # fmt: skip


def _controls(board: Board) -> Iterator[dict[str, Any]]:
    controls = board.controls
    if controls is None:
        return
    for n in controls.normalised:
        yield {"section": "normalised", "designer": n.designer, "metric": n.metric,
               "baseline": controls.zero, "value": n.score, "ci_low": n.low, "ci_high": n.high,
               "note": n.note}  # fmt: skip
    for line in sensitivity_lines(controls):
        for metric, d in line.deltas.items():
            yield {"section": "sensitivity", "designer": line.first, "metric": metric,
                   "seeds": d.seeds, "note": d.note, **_delta(board, d),
                   "baseline": line.second}  # fmt: skip
    if controls.note:
        yield {"section": "controls", "note": controls.note}


def _design(board: Board) -> Iterator[dict[str, Any]]:
    flagged: list[tuple[str, str, DesignFailures, bool, str]] = [
        (r.designer, r.kind, r.design_failures, True, r.design_failures.summary)
        for r in board.rows
        if r.design_failures is not None
    ]
    flagged += [(u.designer, u.kind, u.design_failures, False, u.note) for u in board.unranked]
    for designer, kind, flag, ranked, note in flagged:
        who = {"section": "design", "designer": designer, "kind": kind, "note": note}
        for reason, count in flag.reasons.items():
            yield {**who, "metric": "failed_steps", "key": reason, "value": count}
        for metric, value in (("failed_steps", flag.failed), ("design_steps", flag.steps),
                              ("ranked", ranked)):  # fmt: skip
            yield {**who, "metric": metric, "value": value}


def _estimate(e: Estimate | None, why: str) -> dict[str, Any]:
    if e is None:
        return {"note": why}
    return {"value": e.mean, "ci_low": e.low, "ci_high": e.high, "seeds": e.seeds, "note": e.note}


def _why(suites: list[SuiteInfo], metric: str) -> str:
    """Why `metric` is unknown on these suites (the first that lacks it)."""
    found = next((s for s in suites if metric in s.unavailable), None)
    return NA if found is None else unavailable_line(found.name, found.unavailable[metric])


def _delta(board: Board, d: Delta | None) -> dict[str, Any]:
    if d is None:
        return {}
    return {"baseline": board.baseline, "delta": d.mean, "delta_low": d.low,
            "delta_high": d.high, "delta_includes_zero": d.includes_zero,
            "paired": d.paired}  # fmt: skip


def _reference(board: Board) -> Iterator[dict[str, Any]]:
    if board.reference is None:
        return
    label = board.reference.label
    for r in board.reference.rows:
        who = {"section": "reference", "designer": r.designer or r.label, "kind": r.kind,
               "note": f"{label} ({r.source}): {r.label}"}  # fmt: skip
        for suite, rates in r.suites.items():
            for metric in ("valid", "optimal_makespan"):
                yield {**who, "suite": suite, "metric": metric, "value": getattr(rates, metric)}
            for size, cell in r.sizes.get(suite, {}).items():
                for metric in ("valid", "optimal_makespan"):
                    yield {**who, "suite": suite, "cut": "size", "key": size, "metric": metric,
                           "value": getattr(cell, metric)}  # fmt: skip
