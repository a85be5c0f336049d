"""Reads of the insights app: the analytics aggregates, gap clusters, evaluation runs."""
