"""MAPF-FrozenLake's configurations and generator statistics as an LLM designer reads them.

Deterministic text (fixed decimals, sizes in order), so the same context gives byte-identical
prompts; short, so several rounds of history fit in one prompt.
"""

from __future__ import annotations

from mapf_env import EnvConfig, GenerationStats
from mapf_env.instance import size_name

__all__ = ["compact_config", "stats_lines"]


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
