"""A stratified subset of a benchmark suite, for a quick look at a policy.

`stratified(suite, N)` keeps N instances, chosen so that any N covers the suite evenly: first one
instance of every (size, wait subset) at the first hole ratio, then at the next hole ratio, and
so on. A larger N keeps every instance a smaller one kept, so raising it reuses answers already
cached; and a bundle's verifier picks the same subset again from the limit its record names.
"""

from __future__ import annotations

from envdesign_common.strata import stratified_positions
from mapf_env.suites import BenchmarkSuite

__all__ = ["stratified"]


def stratified(suite: BenchmarkSuite, limit: int | None) -> BenchmarkSuite:
    """`suite` with at most `limit` items, spread as the module docstring says, in suite order."""
    if limit is None or limit >= len(suite.items):
        return suite
    cells = [(item.size, item.subset, item.hole_ratio) for item in suite.items]
    chosen = stratified_positions(cells, limit)
    return suite.model_copy(update={"items": tuple(suite.items[i] for i in chosen)})
