"""Bots and search: evaluation, bots, time management and matches."""
