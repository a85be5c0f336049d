"""Retrieval benchmark: vector, full-text and hybrid search on labelled BEIR corpora, plus latency."""
