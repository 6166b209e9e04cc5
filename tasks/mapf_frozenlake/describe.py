"""MAPF-FrozenLake's configurations, generator statistics and validation reports as an LLM
designer reads them: the text of the paper's context modules (F and H).

Deterministic text (fixed decimals, sizes in order), so the same context gives byte-identical
prompts; short, so several rounds of history fit in one prompt.
"""

from __future__ import annotations

from collections.abc import Callable

from mapf_env import EnvConfig, GenerationStats
from mapf_env.instance import size_name
from mapf_env.report import FAILURE_TYPES, EvalReport, RateCounts

__all__ = ["compact_config", "report_lines", "report_table", "stats_lines"]


def compact_config(config: EnvConfig) -> str:
    """One line per size: short enough that several rounds fit in the history."""
    return "\n".join(
        f"  {size_name(s)}: ratio {c.ratio:.3f}, hole_ratio {c.hole_ratio:.3f}, "
        f"wait_ratio {c.wait_ratio:.3f}"
        for s, c in sorted(config.sizes.items())
    )


def stats_lines(stats: GenerationStats) -> str:
    """What the generator achieved against what was asked, one line per size."""
    lines = ["Generator achieved (asked -> reached):"]
    for size, s in sorted(stats.sizes.items()):
        lines.append(
            f"- {size_name(size)}: {s.generated}/{s.requested} samples, "
            f"hole_ratio {s.target_hole_ratio:.2f} -> {s.hole_ratio:.2f}, "
            f"wait_ratio {s.target_wait_ratio:.2f} -> {s.wait_ratio:.2f}"
        )
    lines += [f"- shortfall: {line}" for line in stats.shortfalls()]
    return "\n".join(lines)


def _pct(num: int, den: int) -> str:
    return f"{100 * num / den:.1f}%" if den else "n/a"


def _optimal_columns(report: EvalReport) -> list[tuple[str, Callable[[RateCounts], int]]]:
    """The optimal counts a report can show: both exact optima where every answer had them
    (the paper's "optimal" is the makespan one), else the answer key's own objective."""
    if report.overall.optimal_makespan is None or report.overall.optimal_soc is None:
        return [("optimal", lambda rc: rc.optimal)]
    return [
        ("optimal makespan", lambda rc: rc.optimal_makespan or 0),
        ("optimal SOC", lambda rc: rc.optimal_soc or 0),
    ]


def report_table(report: EvalReport) -> str:
    """Overall and per-size valid/optimal rates plus failure counts, as Markdown."""
    o, columns = report.overall, _optimal_columns(report)
    overall = ", ".join(
        [f"{o.valid}/{o.n} valid ({_pct(o.valid, o.n)})"]
        + [f"{count(o)}/{o.n} {name} ({_pct(count(o), o.n)})" for name, count in columns]
    )
    names = " | ".join(name for name, _ in columns)
    lines = [
        f"Overall: {overall}.",
        "",
        f"| size | n | valid | {names} | main failures |",
        "|---|---|---|" + "---|" * len(columns) + "---|",
    ]
    for size, rc in sorted(report.per_size.items()):
        fails = report.per_size_failures.get(size, {})
        top = ", ".join(f"{k} {v}" for k, v in sorted(fails.items(), key=lambda kv: -kv[1]) if v)
        rates = " | ".join(_pct(count(rc), rc.n) for _, count in columns)
        lines.append(
            f"| {size_name(size)} | {rc.n} | {_pct(rc.valid, rc.n)} | {rates} | {top or '-'} |"
        )
    counts = ", ".join(f"{k} {report.failures.get(k, 0)}" for k in FAILURE_TYPES)
    lines += ["", f"Failures by type (first failing check): {counts}."]
    return "\n".join(lines)


def report_lines(report: EvalReport) -> str:
    """Two lines for the history: the overall valid and optimal rates, then the failure types
    that occurred, most frequent first."""
    o = report.overall
    optimal = ", ".join(f"{name} {_pct(count(o), o.n)}" for name, count in _optimal_columns(report))
    worst = sorted(report.failures.items(), key=lambda kv: -kv[1])
    top = ", ".join(f"{k} {v}" for k, v in worst if v)
    return f"Result: valid {_pct(o.valid, o.n)}, {optimal}.\nFailures: {top or 'none'}."
