"""Which benchmark instances are asked: whole suites, or a stratified subset for a quick look.

`--limit N` keeps N instances per suite, chosen so that any N covers the suite evenly: first one
instance of every (size, wait subset) at the first hole ratio, then at the next hole ratio, and
so on. A larger limit keeps every instance a smaller one kept, so raising it reuses the answers
already cached. A record made with a limit says so, and boards refuse to mix it with full ones.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.policy_eval.errors import PolicyEvalError
from mapf_env import BenchmarkItem, BenchmarkSuite, available_suites, load_suite


def load_suites(names: Sequence[str], limit: int | None = None) -> list[BenchmarkSuite]:
    """The named shipped suites (each at most `limit` instances), in the order given."""
    if not names:
        raise PolicyEvalError("--bench needs at least one suite, e.g. 3agents,4agents,5agents")
    if limit is not None and limit < 1:
        raise PolicyEvalError(f"--limit must be at least 1, got {limit}")
    known = available_suites()
    unknown = [n for n in names if n not in known]
    if unknown:
        raise PolicyEvalError(
            f"unknown benchmark suite {unknown[0]!r}; available: {', '.join(known)}"
        )
    if len(set(names)) != len(names):
        raise PolicyEvalError(f"--bench names a suite twice: {', '.join(names)}")
    return [stratified(load_suite(name), limit) for name in names]


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
