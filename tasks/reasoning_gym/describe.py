"""The reasoning-gym task's configurations and generator statistics as an LLM designer reads
them: one line per dataset, fixed decimals, datasets in name order, so the same context gives
byte-identical prompts."""

from __future__ import annotations

from collections.abc import Mapping

from tasks.reasoning_gym.config import RgConfig, RgStats

__all__ = ["compact_config", "stats_lines"]


def compact_config(config: RgConfig, highest: Mapping[str, int]) -> str:
    """One line per dataset: its weight and level (and its highest level, where known)."""
    lines = []
    for name, setting in sorted(config.datasets.items()):
        top = f" of 0..{highest[name]}" if name in highest else ""
        lines.append(f"  {name}: weight {setting.weight:.3f}, level {setting.level}{top}")
    return "\n".join(lines)


def stats_lines(stats: RgStats) -> str:
    """What generation made against what was asked, one line per dataset."""
    lines = [f"Generator achieved (asked -> made, {stats.samples} samples in all):"]
    for name, s in sorted(stats.datasets.items()):
        lines.append(f"- {name}: {s.generated}/{s.requested} samples at level {s.level}")
    return "\n".join(lines)
