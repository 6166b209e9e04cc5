"""Designers that need no model: fixed baselines, a hand curriculum, evidence rules, a control."""

from designers.builtin.matched import BenchmarkMix, MatchedDesigner, MatchedOptions, benchmark_mix

__all__ = ["BenchmarkMix", "MatchedDesigner", "MatchedOptions", "benchmark_mix"]
