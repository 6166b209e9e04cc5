"""leaderboards package."""
