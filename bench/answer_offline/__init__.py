"""Benchmark of the offline answer provider on a BEIR corpus (see __main__)."""
