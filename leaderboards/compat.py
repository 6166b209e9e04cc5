"""Which runs may share a board: same benchmarks (suites and contents), same experiment.

A board compares designers, so runs may differ only in the designer, its options and the seed.
Two runs of another benchmark version, other suites, or another experiment setting (rounds,
samples, backend, policy, ...) are refused with a message naming both runs and the first
difference: nothing is averaged across incompatible runs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from harness.records import SuiteResult
from leaderboards.errors import LeaderboardError
from leaderboards.readers import LoadedRun

FREE_FIELDS = ("name", "designers", "seeds", "designer_options")
"""Experiment fields that may differ between runs on one board."""


def shared_experiment(run: LoadedRun) -> dict[str, Any]:
    """A run's experiment config without the fields a board lets differ."""
    free = (*FREE_FIELDS, "policy") if run.record.kind == "policy" else FREE_FIELDS  # its model
    return {k: v for k, v in run.record.experiment.items() if k not in free}


def check_compatible(runs: Sequence[LoadedRun]) -> None:
    """Raise `LeaderboardError` unless every run can share one board."""
    if not runs:
        raise LeaderboardError("no runs to build a board from")
    _no_duplicates(runs)
    first = runs[0]
    for other in runs[1:]:
        _same_suites(first, other)
        for suite in first.record.suites:
            _same_benchmark(first, other, suite)
    by_kind: dict[str, LoadedRun] = {}
    for run in runs:
        anchor = by_kind.setdefault(run.record.kind, run)
        _same_experiment(anchor, run)
    _same_options(runs)


def benchmark_fingerprint(result: SuiteResult) -> str:
    """A checksum of the suite's instance layout (ids, sizes, subsets, hole ratios)."""
    digest = hashlib.sha256()
    for v in sorted(result.verdicts, key=lambda v: v.id):
        digest.update(f"{v.id}|{v.size}|{v.subset}|{v.hole_ratio!r}\n".encode())
    return digest.hexdigest()


def _no_duplicates(runs: Sequence[LoadedRun]) -> None:
    seen: dict[tuple[str, str, int], LoadedRun] = {}
    for run in runs:
        key = (run.record.kind, run.record.designer, run.record.seed)
        if key in seen:
            raise LeaderboardError(
                f"{seen[key].name} and {run.name} are both {run.record.designer} seed "
                f"{run.record.seed}: pass only one of them"
            )
        seen[key] = run


def _same_suites(a: LoadedRun, b: LoadedRun) -> None:
    mine, theirs = sorted(a.record.suites), sorted(b.record.suites)
    if mine != theirs:
        raise LeaderboardError(
            f"{a.name} has benchmark suites {', '.join(mine)} but {b.name} has "
            f"{', '.join(theirs)}: a board compares runs on the same benchmarks"
        )


def _same_benchmark(a: LoadedRun, b: LoadedRun, suite: str) -> None:
    x, y = a.record.suites[suite], b.record.suites[suite]
    if x.content_sha256 and y.content_sha256 and x.content_sha256 != y.content_sha256:
        detail = f"manifest checksum {x.content_sha256[:12]} vs {y.content_sha256[:12]}"
    elif x.suite_version and y.suite_version and x.suite_version != y.suite_version:
        detail = f"suite version {x.suite_version} vs {y.suite_version}"
    elif benchmark_fingerprint(x) != benchmark_fingerprint(y):
        detail = f"{len(x.verdicts)} vs {len(y.verdicts)} instances, or other instance ids"
    else:
        return
    raise LeaderboardError(
        f"{a.name} and {b.name} were scored on different versions of benchmark {suite} "
        f"({detail}): build one board per benchmark version"
    )


def _same_experiment(a: LoadedRun, b: LoadedRun) -> None:
    where = _first_difference(shared_experiment(a), shared_experiment(b))
    if where is None:
        return
    key, mine, theirs = where
    raise LeaderboardError(
        f"{a.name} and {b.name} ran different experiments ({key}: {mine!r} vs {theirs!r}); "
        "a board compares designers under one config: build one board per config"
    )


def _same_options(runs: Sequence[LoadedRun]) -> None:
    """A designer's options must be the same in all its runs."""
    first: dict[str, LoadedRun] = {}
    for run in runs:
        anchor = first.setdefault(run.record.designer, run)
        mine = _options(anchor)
        theirs = _options(run)
        if mine != theirs:
            raise LeaderboardError(
                f"{anchor.name} and {run.name} ran designer {run.record.designer} with "
                f"different options ({mine!r} vs {theirs!r}): build one board per setting"
            )


def _options(run: LoadedRun) -> Any:
    options = run.record.experiment.get("designer_options") or {}
    return options.get(run.record.designer, {}) if isinstance(options, Mapping) else options


def _first_difference(
    a: Mapping[str, Any], b: Mapping[str, Any], prefix: str = ""
) -> tuple[str, Any, Any] | None:
    for key in sorted(set(a) | set(b)):
        x, y = a.get(key, "<missing>"), b.get(key, "<missing>")
        if isinstance(x, Mapping) and isinstance(y, Mapping):
            inner = _first_difference(x, y, f"{prefix}{key}.")
            if inner is not None:
                return inner
        elif x != y:
            return f"{prefix}{key}", x, y
    return None
