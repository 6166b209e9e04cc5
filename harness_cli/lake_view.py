"""Terminal pictures of instances and the statistics of a generated round."""

from __future__ import annotations

from rich import box
from rich.table import Table
from rich.text import Text

from mapf_env import HOLE, Instance, Plan
from mapf_env.generator import GenerationStats
from mapf_env.instance import size_name

_AGENT_STYLES = (
    "bold red",
    "bold blue",
    "bold green",
    "bold magenta",
    "bold yellow",
    "bold cyan",
    "bold white",
    "bold bright_red",
)


def lake_picture(instance: Instance, plan: Plan | None = None) -> Text:
    """The grid with holes, starts (S1..) and goals (G1..); a plan's cells are tinted per agent."""
    marks: dict[tuple[int, int], tuple[str, str]] = {}
    for i, path in enumerate(plan or ()):
        for cell in path[1:-1]:
            marks.setdefault(cell, (" · ", _AGENT_STYLES[i % len(_AGENT_STYLES)]))
    for i, (start, goal) in enumerate(zip(instance.starts, instance.goals, strict=True)):
        style = _AGENT_STYLES[i % len(_AGENT_STYLES)]
        marks[start] = (f"S{i + 1:<2d}"[:3], style)
        marks[goal] = (f"G{i + 1:<2d}"[:3], style)
    text = Text("    " + "".join(f"{c:^3d}" for c in range(instance.size)) + "\n", style="dim")
    for r, row in enumerate(instance.grid):
        text.append(f"{r:>3d} ", style="dim")
        for c, ch in enumerate(row):
            if ch == HOLE:
                text.append(" H ", style="white on dark_blue")
            else:
                label, style = marks.get((r, c), (" . ", "grey50"))
                text.append(label, style=f"{style} on grey93" if (r, c) in marks else style)
        text.append("\n")
    return text


def stats_table(stats: GenerationStats) -> Table:
    """Requested against achieved per size; rejection reasons are in generation.json."""
    plural = "s" if stats.workers != 1 else ""
    table = Table(
        title=f"{stats.total} instances in {stats.seconds:.2f} s ({stats.workers} worker{plural})",
        box=box.SIMPLE_HEAD,
    )
    for name in ("size", "made", "holes", "dead", "wait", "short", "rejected", "opt cost"):
        table.add_column(name, justify="right")
    for s in stats.sizes.values():
        if not s.requested:
            continue
        short = s.kind_shortfall + s.hole_relief + (s.requested - s.generated)
        table.add_row(
            size_name(s.size),
            str(s.generated) if s.generated == s.requested else f"{s.generated}/{s.requested}",
            f"{s.target_hole_ratio:.2f}→{s.hole_ratio:.2f}",
            f"{s.dead_cell_ratio:.2f}",
            f"{s.target_wait_ratio:.2f}→{s.wait_ratio:.2f}",
            str(short) if short else "-",
            str(sum(s.rejections.values())),
            f"{s.mean_optimal_cost:.2f}",
        )
    return table
