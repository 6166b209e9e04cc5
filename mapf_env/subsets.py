"""A stratified subset of a benchmark suite, for a quick look at a policy.

`stratified(suite, N)` keeps N instances, chosen so that any N covers the suite evenly: first one
instance of every (size, wait subset) at the first hole ratio, then at the next hole ratio, and
so on. A larger N keeps every instance a smaller one kept, so raising it reuses answers already
cached; and a bundle's verifier picks the same subset again from the limit its record names.
"""

from __future__ import annotations

from collections.abc import Sequence

from mapf_env.suites import BenchmarkItem, BenchmarkSuite

__all__ = ["stratified"]


def stratified(suite: BenchmarkSuite, limit: int | None) -> BenchmarkSuite:
    """`suite` with at most `limit` items, spread as the module docstring says, in suite order."""
    if limit is None or limit >= len(suite.items):
        return suite
    ranks = _ranks(suite.items)
    chosen = sorted(sorted(range(len(suite.items)), key=ranks.__getitem__)[:limit])
    return suite.model_copy(update={"items": tuple(suite.items[i] for i in chosen)})


def _ranks(items: Sequence[BenchmarkItem]) -> list[tuple[int, int, int, int]]:
    """(place within its hole block, hole ratio, wait subset, size) of every item."""
    holes = sorted({item.hole_ratio for item in items})
    subsets = sorted({item.subset for item in items})
    seen: dict[tuple[int, str, float], int] = {}
    ranks = []
    for item in items:
        cell = (item.size, item.subset, item.hole_ratio)
        place = seen.get(cell, 0)
        seen[cell] = place + 1
        ranks.append((place, holes.index(item.hole_ratio), subsets.index(item.subset), item.size))
    return ranks
