"""designers package."""
