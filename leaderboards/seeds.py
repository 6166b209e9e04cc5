"""How seeds read wherever a person sees them: a count as a count, ids after the word seed.

A bare `0` under a "seeds" heading reads as zero seeds, and "mean over seeds 0" reads as a
mean over none. So a count says what it counts ("1 seed", "3 seeds") and ids are always
introduced by the word ("seed 0", "seeds 0, 1, 2"); one seed is "seed 0 only" where a mean
over several would stand.
"""

from __future__ import annotations

from collections.abc import Iterable


def seed_count(n: int) -> str:
    """`1 seed`, `3 seeds`."""
    return f"{n} seed" if n == 1 else f"{n} seeds"


def seed_ids(seeds: Iterable[int]) -> str:
    """`seed 0`, `seeds 0, 1, 2`."""
    ids = [str(s) for s in seeds]
    if not ids:
        raise ValueError("no seeds to name")
    return f"{'seed' if len(ids) == 1 else 'seeds'} {', '.join(ids)}"


def mean_over_seeds(seeds: Iterable[int]) -> str:
    """`mean over seeds 0, 1, 2`, or `seed 0 only` where one seed leaves nothing to average."""
    ids = list(seeds)
    return f"{seed_ids(ids)} only" if len(ids) == 1 else f"mean over {seed_ids(ids)}"
