"""Benchmarks for Parley: run with `python -m bench.<name>`; never part of the test suite."""
