"""The error a bundle is refused with: one line naming the bundle, what is wrong, what to do."""

from __future__ import annotations

from leaderboards.errors import LeaderboardError


class BundleError(LeaderboardError):
    """A bundle that cannot be written, verified or merged; the message is one line."""
