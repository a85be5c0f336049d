"""Benchmark of the offline answer's text against a FAQ corpus's gold answers (see __main__)."""
