"""A stratified subset of a task's suite: the same items for the same suite and limit.

A backend too slow for whole suites (a language model on a CPU) is evaluated on `limit` items
of each, spread over every value of every cut (`envdesign_common.strata` says how), and a
bundle's verifier picks the same subset again from the limit its record names.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TypeVar

from envdesign_common.strata import stratified_positions
from tasks.base import Suite

__all__ = ["stratified"]

ItemT = TypeVar("ItemT")


def stratified(suite: Suite[ItemT], cuts: tuple[str, ...], limit: int | None) -> Suite[ItemT]:
    """`suite` with at most `limit` items, stratified over `cuts` (the task's), in suite
    order; the whole suite when `limit` is None or covers it. The checksum stays the whole
    suite's: it names what the subset was drawn from."""
    if limit is None or limit >= len(suite.items):
        return suite
    cells = [tuple(item.cuts[cut] for cut in cuts) for item in suite.items]
    chosen = stratified_positions(cells, limit)
    return replace(suite, items=tuple(suite.items[i] for i in chosen))
