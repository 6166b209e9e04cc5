"""Designers that need no model: fixed baselines, a hand curriculum, evidence rules, a control."""

from designers.builtin.matched import (
    BENCHMARK_SUITES,
    BenchmarkMix,
    MatchedDesigner,
    MatchedOptions,
    benchmark_mix,
)

__all__ = ["BENCHMARK_SUITES", "BenchmarkMix", "MatchedDesigner", "MatchedOptions", "benchmark_mix"]
