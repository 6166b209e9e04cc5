"""The running valid rate a trainer keeps across batches and rounds, for rewards that weigh
correctness by how often the policy is already right (MAPF-FrozenLake's accuracy weight).

It lives below every task and backend because a backend keeps it (in its saved state, across
rounds) while the task's reward reads it: neither owns it alone.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["RunningValidRate"]


class RunningValidRate:
    """Exponential moving average of per-batch valid rates, for `reward`'s ``valid_rate``.

    An EMA rather than a window: one float of state, so it checkpoints trivially and costs
    nothing per step. It starts at ``initial`` (0 by default) on purpose: the weight begins on
    concision and only moves to correctness as valid answers actually accumulate, at a pace set
    by ``alpha`` (about ``1 / alpha`` batches to follow a change).
    """

    __slots__ = ("_value", "alpha", "updates")

    def __init__(self, alpha: float = 0.1, initial: float = 0.0) -> None:
        if not 0.0 < alpha <= 1.0:
            raise ValueError(f"alpha must be in (0, 1], got {alpha}")
        if not 0.0 <= initial <= 1.0:
            raise ValueError(f"initial must be in [0, 1], got {initial}")
        self.alpha = alpha
        self._value = initial
        self.updates = 0

    @property
    def value(self) -> float:
        return self._value

    def update(self, batch: Iterable[bool] | float) -> float:
        """Fold in one batch (its valid flags or its valid rate); an empty batch changes nothing."""
        if isinstance(batch, int | float):
            rate = float(batch)
            if not 0.0 <= rate <= 1.0:
                raise ValueError(f"a batch valid rate must be in [0, 1], got {batch}")
        else:
            flags = [bool(v) for v in batch]
            if not flags:
                return self._value
            rate = sum(flags) / len(flags)
        self._value += self.alpha * (rate - self._value)
        self.updates += 1
        return self._value
