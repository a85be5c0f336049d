"""Writes of the insights app: gap clusterings, evaluation sets and runs."""
