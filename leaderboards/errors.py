"""The one error type the leaderboards raise for bad input: a single line naming the run."""

from __future__ import annotations


class LeaderboardError(ValueError):
    """Runs that cannot be read, or cannot share one board; the message is one line."""
