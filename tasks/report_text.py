"""A generic report (`CutReport`) as text an LLM designer reads: the breakdown after a round
and the two lines its history keeps of it.

Percentages have one decimal and rows follow the report's own order of cut values, so the same
report always gives the same text (prompts are compared byte for byte).
"""

from __future__ import annotations

from tasks.records import CutCounts, CutReport, Judging

__all__ = ["report_breakdown", "report_lines"]


def _pct(part: float, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "n/a"


def _optimal(task: Judging, counts: CutCounts) -> list[str]:
    return [
        f"optimal {kind} {'n/a' if (c := counts.optimal.get(kind)) is None else _pct(c, counts.n)}"
        for kind in task.optimal_kinds
    ]


def _failures(report: CutReport) -> str:
    ranked = sorted(report.failures.items(), key=lambda kv: -kv[1])
    return ", ".join(f"{kind} {n}" for kind, n in ranked if n) or "none"


def report_breakdown(task: Judging, report: CutReport) -> str:
    """Overall, then one table per cut (a row per value: answers, valid, mean score and each
    optimum), then the failures by type."""
    o = report.overall
    overall = [f"{o.valid}/{o.n} valid ({_pct(o.valid, o.n)})", f"mean score {_pct(o.score, o.n)}"]
    lines = [f"Overall: {', '.join(overall + _optimal(task, o))}."]
    kinds = [f"optimal {kind}" for kind in task.optimal_kinds]
    for cut in task.cuts:
        rows = report.by_cut.get(cut, {})
        if not rows:
            continue
        lines += ["", "| " + " | ".join([cut, "n", "valid", "score", *kinds]) + " |",
                  "|---|---|---|---|" + "---|" * len(kinds)]  # fmt: skip
        for value, c in rows.items():
            optima = [_pct(n, c.n) if (n := c.optimal.get(k)) is not None else "n/a"
                      for k in task.optimal_kinds]  # fmt: skip
            cells = [value, str(c.n), _pct(c.valid, c.n), _pct(c.score, c.n), *optima]
            lines.append("| " + " | ".join(cells) + " |")
    counts = ", ".join(f"{k} {report.failures.get(k, 0)}" for k in task.failure_types)
    lines += ["", f"Failures by type: {counts or 'none'}."]
    return "\n".join(lines)


def report_lines(task: Judging, report: CutReport) -> str:
    """Two lines: the overall rates, then the failure types that occurred, most frequent first."""
    o = report.overall
    rates = [f"valid {_pct(o.valid, o.n)}", f"mean score {_pct(o.score, o.n)}", *_optimal(task, o)]
    return f"Result: {', '.join(rates)}.\nFailures: {_failures(report)}."
