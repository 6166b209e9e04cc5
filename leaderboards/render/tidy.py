"""The board as CSV: one tidy row per number, for spreadsheets and pandas."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import Any

from leaderboards.board import Board, Delta, DesignFailures, Estimate

FIELDS = (
    "section", "designer", "kind", "backend", "policy", "suite", "cut", "key", "metric",
    "value", "ci_low", "ci_high", "seeds", "note", "baseline", "delta", "delta_low",
    "delta_high", "delta_includes_zero", "paired",
)  # fmt: skip


def render_csv(board: Board) -> str:
    """Rates (`section` rate / detail), design failures, answer failures, costs, reported figures.

    A `design` row exists only for a designer with failed design steps: `failed_steps` (per
    reason in `key`, and in total), `design_steps` and `ranked`, the flag's text in `note`.
    """
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=FIELDS, lineterminator="\n")
    writer.writeheader()
    for row in _rows(board):
        writer.writerow(row)
    return buffer.getvalue()


def _rows(board: Board) -> Iterator[dict[str, Any]]:
    for row in board.rows:
        who = {"designer": row.designer, "kind": row.kind, "backend": row.backend,
               "policy": row.policy}  # fmt: skip
        cells = [*((s, row.suites[s], (row.delta or {}).get(s)) for s in row.suites),
                 ("overall", row.overall, row.delta_overall)]  # fmt: skip
        for suite, cell, delta in cells:
            for metric in ("valid", "optimal"):
                d = getattr(delta, metric) if delta is not None else None
                yield {"section": "rate", **who, "suite": suite, "metric": metric,
                       **_estimate(getattr(cell, metric)), **_delta(board, d)}  # fmt: skip
    for detail in board.details:
        for metric in ("valid", "optimal"):
            yield {"section": "detail", "designer": detail.designer, "suite": detail.suite,
                   "cut": detail.cut, "key": detail.key, "metric": metric,
                   **_estimate(getattr(detail.rates, metric))}  # fmt: skip
    yield from _design(board)
    for f in board.failures:
        for metric, share in {"valid": f.valid, **f.shares}.items():
            yield {"section": "failure", "designer": f.designer, "suite": f.suite,
                   "metric": metric, "value": share}  # fmt: skip
    for c in board.costs:
        for metric in ("proposals", "model_calls", "prompt_tokens", "completion_tokens",
                       "cost_usd", "design_seconds_per_round", "train_seconds_per_round",
                       "run_seconds"):  # fmt: skip
            note = c.cost_note if metric == "cost_usd" else None
            yield {"section": "cost", "designer": c.designer, "metric": metric,
                   "value": getattr(c, metric), "note": note}  # fmt: skip
    yield from _reference(board)


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


def _estimate(e: Estimate) -> dict[str, Any]:
    return {"value": e.mean, "ci_low": e.low, "ci_high": e.high, "seeds": e.seeds, "note": e.note}


def _delta(board: Board, d: Delta | None) -> dict[str, Any]:
    if d is None:
        return {}
    return {"baseline": board.baseline, "delta": d.mean, "delta_low": d.low,
            "delta_high": d.high, "delta_includes_zero": d.includes_zero,
            "paired": d.paired}  # fmt: skip


def _reference(board: Board) -> Iterator[dict[str, Any]]:
    if board.reference is None:
        return
    for r in board.reference.rows:
        for suite, rates in r.suites.items():
            for metric in ("valid", "optimal"):
                yield {"section": "reference", "designer": r.designer or r.label,
                       "kind": r.kind, "suite": suite, "metric": metric,
                       "value": getattr(rates, metric), "note": board.reference.label}  # fmt: skip
