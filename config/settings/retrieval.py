"""Retrieval: the reranker, the HNSW walks, BM25 and its pruning, the fusion's calibration."""

from __future__ import annotations

from config.env import env_float, env_int, env_str

# Optional reranker: a TEI or Cohere-style server answering POST {RERANKER_URL}/rerank; on any
# error retrieval keeps the fused order.
RERANKER_URL = env_str("RERANKER_URL", "")
RERANKER_MODEL = env_str("RERANKER_MODEL", "")
RERANKER_API_KEY = env_str("RERANKER_API_KEY", "")
RERANKER_TIMEOUT_SECONDS = env_float("RERANKER_TIMEOUT_SECONDS", 2.0, minimum=0.1)
# HNSW candidate list per vector search (pgvector's hnsw.ef_search, at least the 40 candidates
# retrieval fuses); 100 measured by bench/retrieval --latency: recall of the exact top-40 0.99 at 10k.
RETRIEVAL_HNSW_EF_SEARCH = env_int("RETRIEVAL_HNSW_EF_SEARCH", 100, minimum=1, maximum=1000)
# A scope of at most this many chunks is searched exactly (every vector compared: complete, and still fast
# at this size); a larger one walks the HNSW index, see rag.retrieval.sql and
# docs/decisions/vector-search-plan.md for the measured cut.
RETRIEVAL_EXACT_SCAN_MAX_CHUNKS = env_int("RETRIEVAL_EXACT_SCAN_MAX_CHUNKS", 2000, minimum=0)
# A workspace (per embedding dimension) of at least this many chunks gets an HNSW index of its own from
# `manage.py chunks_workspace_indexes` (rag.workspace_indexes; docs/decisions/tenant-isolation.md).
RETRIEVAL_WORKSPACE_INDEX_MIN_CHUNKS = env_int(
    "RETRIEVAL_WORKSPACE_INDEX_MIN_CHUNKS", 5000, minimum=1
)
# Threads per process that run retrieval's full-text statement while the question is embedded (each on
# its own connection from the pool); 0 runs it after the embedding, on the caller's connection.
RETRIEVAL_TEXT_THREADS = env_int("RETRIEVAL_TEXT_THREADS", 4, minimum=0, maximum=64)
# Okapi BM25 of the full-text side (rag.retrieval.bm25): term-frequency saturation k1 and length normalisation b
# (the textbook 1.2 / 0.75).
RETRIEVAL_BM25_K1 = env_float("RETRIEVAL_BM25_K1", 1.2, minimum=0.0, maximum=10.0)
RETRIEVAL_BM25_B = env_float("RETRIEVAL_BM25_B", 0.75, minimum=0.0, maximum=1.0)
# Max-score pruning: a query's lexemes are taken rarest first (the rarest always) while the chunks holding them
# number at most this; commoner lexemes still score those candidates but find none. 1000: the full-text side's
# time cut by about four at 100k chunks with its recall unchanged (docs/decisions/bm25-pruning.md).
RETRIEVAL_BM25_POSTINGS_BUDGET = env_int("RETRIEVAL_BM25_POSTINGS_BUDGET", 1000, minimum=1)
# The safety test's own budget: the lexemes it must search (chunks holding no essential one could still reach
# the exact top 20) are taken rarest first while their chunks number at most this; past it the commonest go
# unsearched and the ranking may differ from exact BM25's. 5000: measured at 1M rows (bench/scale, a 500k-chunk
# workspace), much faster with recall@10 unchanged (docs/decisions/bm25-pruning.md).
RETRIEVAL_BM25_SAFETY_BUDGET = env_int("RETRIEVAL_BM25_SAFETY_BUDGET", 5000, minimum=0)
# maintenance_work_mem (MB) of the transaction that (re)builds an HNSW index (`manage.py chunks_reindex`):
# with PostgreSQL's 64 MB the 100k-chunk graph stops fitting and the build runs several times slower
# (bench/README.md).
RETRIEVAL_HNSW_BUILD_MEMORY_MB = env_int(
    "RETRIEVAL_HNSW_BUILD_MEMORY_MB", 512, minimum=64, maximum=65536
)

# Per-workspace fusion calibration (rag.retrieval.calibration): chunks sampled into (query, chunk) pairs,
# the fewest pairs worth measuring (fewer: the default fusion stays), the share of the queries rewritten by
# the LLM when one is configured, and the share of a workspace's chunks ingestion must add or remove before
# a background recalibration.
RETRIEVAL_CALIBRATION_SAMPLE_SIZE = env_int(
    "RETRIEVAL_CALIBRATION_SAMPLE_SIZE", 300, minimum=10, maximum=5000
)
RETRIEVAL_CALIBRATION_MIN_PAIRS = env_int("RETRIEVAL_CALIBRATION_MIN_PAIRS", 30, minimum=4)
RETRIEVAL_CALIBRATION_PARAPHRASE_SHARE = env_float(
    "RETRIEVAL_CALIBRATION_PARAPHRASE_SHARE", 0.5, minimum=0.0, maximum=1.0
)
RETRIEVAL_CALIBRATION_CHANGE_SHARE = env_float(
    "RETRIEVAL_CALIBRATION_CHANGE_SHARE", 0.2, minimum=0.0, maximum=10.0
)
