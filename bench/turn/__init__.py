"""Whole-turn latency benchmark: Parley's turn_answer vs a LangChain PGVector baseline (see __main__)."""
