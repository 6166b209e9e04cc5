"""Designers that need no model: fixed baselines, a hand curriculum, evidence rules, a control."""
