"""Benchmark of the answer support check (issue 50): correct LLM-style answers and the same answers with
one fact changed, from public extractive QA sets, checked against their paragraphs (see __main__)."""
