"""Which items of a suite a stratified subset of it keeps, whatever the suite holds.

Items are grouped by their cells (a tuple of cut values per item: map size, wait subset, hole
ratio; dataset, level). A subset of N keeps, in suite order, the N items ranked first: one item
of every cell, cycling through the values of the last cut before the earlier ones, then a
second of every cell, and so on. Any N thus covers the suite evenly; a larger N keeps every item
a smaller one kept (so raising it reuses answers already cached); and the same suite and N
always give the same subset, which is how a record's `limit` is scored again. A cut's values
are ranked in the order the suite first lists them.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

__all__ = ["stratified_positions"]


def stratified_positions(cells: Sequence[tuple[Hashable, ...]], limit: int) -> list[int]:
    """The positions, ascending, of the `limit` items a stratified subset keeps; `cells[i]` is
    item i's tuple of cut values."""
    orders: list[dict[Hashable, int]] = [{} for _ in cells[0]] if cells else []
    seen: dict[tuple[Hashable, ...], int] = {}
    ranks = []
    for cell in cells:
        place = seen.get(cell, 0)
        seen[cell] = place + 1
        pairs = zip(orders, cell, strict=True)
        values = [order.setdefault(value, len(order)) for order, value in pairs]
        ranks.append((place, *reversed(values)))
    return sorted(sorted(range(len(cells)), key=ranks.__getitem__)[:limit])
