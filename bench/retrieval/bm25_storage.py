"""python -m bench.retrieval.bm25_storage [WORKSPACE_SLUG]: the BM25 storage options measured on a workspace.

Compares, on `bench-latency-100000` by default (loaded by `python -m bench.retrieval --latency`) and the latency
bench's real queries:
- the product's statement (`rag.retrieval.sql.text_rows`: term-statistics tables + the chunks' tsvector and GIN
  index, max-score pruning), with and without pruning;
- pgvector `sparsevec`: each chunk's BM25 term weights (tf part, with the workspace's avg_length) in a scratch
  table, the query's idf weights as the other vector, ranked by inner product, by an exact scan and through an
  HNSW index (`sparsevec_ip_ops`).
Prints p50/p95 ms and the overlap of each option's top 40 with the exact BM25 top 40 (the unpruned statement).
The scratch table is dropped at the end.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from dataclasses import replace

TOP = 40


def _p(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def main(argv: list[str]) -> int:
    slug = argv[0] if argv else "bench-latency-100000"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.db import connection
    from django.test import override_settings

    from bench.retrieval.corpus import corpus_load
    from bench.retrieval.embed import tokenizer_load
    from bench.retrieval.latency import CORPORA_ROOT, LATENCY_QUERIES
    from core.models import Workspace
    from rag.retrieval.sql import HybridParams, text_rows
    from textmodels.embeddings import LOCAL_MODEL_ID

    workspace = Workspace.objects.get(slug=slug)
    per_corpus = [  # the latency bench's queries, interleaved across corpora
        [q.text for q in corpus_load(folder, tokenizer=tokenizer_load()).queries]
        for folder in sorted(p for p in CORPORA_ROOT.iterdir() if (p / "corpus.jsonl").exists())
    ]
    queries = [q for group in zip(*per_corpus, strict=False) for q in group][:LATENCY_QUERIES]
    params = HybridParams(
        workspace_id=str(workspace.pk),
        model_id=LOCAL_MODEL_ID,
        query_text="",
        query_embedding=(),
        bot_ids=None,
        conversation_id=None,
        external_user_id="",
        document_ids=None,
        vector_weight=0.0,
        text_weight=1.0,
        rrf_k=10.0,
        candidates=TOP,
        pool=TOP,
    )

    def timed(run) -> tuple[list[float], list[set[str]]]:  # type: ignore[no-untyped-def]
        timings, tops = [], []
        for query in queries:
            started = time.perf_counter()
            tops.append(run(query))
            timings.append((time.perf_counter() - started) * 1000)
        return timings, tops

    def product(query: str) -> set[str]:
        return {hit.chunk_id for hit in text_rows(params=replace(params, query_text=query))}

    results = {}
    with override_settings(RETRIEVAL_BM25_POSTINGS_BUDGET=10**9):
        results["tsvector + statistics, exact"] = timed(product)
    exact = results["tsvector + statistics, exact"][1]
    results["tsvector + statistics, pruned (product)"] = timed(product)
    with connection.cursor() as cursor:
        started = time.perf_counter()
        cursor.execute(_SPARSE_BUILD, {"ws": workspace.pk, "k1": 1.2, "b": 0.75})
        build = time.perf_counter() - started

        def sparse(query: str) -> set[str]:
            cursor.execute(_SPARSE_QUERY, {"ws": workspace.pk, "q": query, "top": TOP})
            return {str(row[0]) for row in cursor.fetchall()}

        cursor.execute("SET enable_indexscan = off")
        results["sparsevec, exact inner product"] = timed(sparse)
        cursor.execute("SET enable_indexscan = on")
        cursor.execute("SELECT count(*) FROM bench_terms")
        dims = int(cursor.fetchone()[0])  # an HNSW index needs the column's dimensions
        cursor.execute(f"ALTER TABLE bench_bm25_sparse ALTER COLUMN weights TYPE sparsevec({dims})")
        started = time.perf_counter()
        cursor.execute("CREATE INDEX ON bench_bm25_sparse USING hnsw (weights sparsevec_ip_ops)")
        index = time.perf_counter() - started
        cursor.execute("SET hnsw.ef_search = 100")
        results["sparsevec, HNSW (ef_search 100)"] = timed(sparse)
        cursor.execute("DROP TABLE bench_bm25_sparse")
    print(f"\nBM25 storage on {slug} ({workspace.name}), {len(queries)} queries, top {TOP}")
    print(f"  sparsevec table built in {build:.1f} s, its HNSW index in {index:.1f} s")
    print(f"  {'option':<42} {'p50 ms':>7} {'p95 ms':>7} {'overlap':>8}")
    for name, (timings, tops) in results.items():
        overlap = statistics.mean(
            len(top & truth) / len(truth) if truth else 1.0
            for top, truth in zip(tops, exact, strict=True)
        )
        print(f"  {name:<42} {_p(timings, 50):>7.1f} {_p(timings, 95):>7.1f} {overlap:>8.3f}")
    return 0


# Term ids: the workspace's rag_termstat rows numbered; a chunk's weights are BM25's tf part.
_SPARSE_BUILD = """
DROP TABLE IF EXISTS bench_bm25_sparse;
CREATE TEMP TABLE bench_terms AS
SELECT t.config, t.term, row_number() OVER (ORDER BY t.config, t.term) AS dim,
       ln(1 + (s.chunks - t.chunks + 0.5) / (t.chunks + 0.5)) AS idf, s.length::float8 / s.chunks AS avg
FROM rag_termstat AS t JOIN rag_corpusstat AS s ON s.workspace_id = t.workspace_id AND s.config = t.config
WHERE t.workspace_id = %(ws)s;
CREATE UNIQUE INDEX ON bench_terms (config, term);
CREATE TABLE bench_bm25_sparse AS
SELECT c.id, ('{' || string_agg(t.dim || ':' || (f.tf * (%(k1)s + 1) / (f.tf + %(k1)s * (1 - %(b)s
          + %(b)s * c.search_length / t.avg)))::real, ',' ORDER BY t.dim) || '}/'
          || (SELECT count(*) FROM bench_terms))::sparsevec AS weights
FROM rag_chunk AS c
CROSS JOIN LATERAL (SELECT u.lexeme, coalesce(array_length(u.positions, 1), 1) AS tf
                    FROM unnest(c.search_vector) AS u) AS f
JOIN bench_terms AS t ON t.config = c.search_config AND t.term = f.lexeme
WHERE c.workspace_id = %(ws)s
GROUP BY c.id;
ANALYZE bench_bm25_sparse;
"""
_SPARSE_QUERY = """
WITH q AS (
    SELECT ('{' || coalesce(string_agg(t.dim || ':' || (t.idf * coalesce(array_length(u.positions, 1), 1))::real,
                                       ',' ORDER BY t.dim), '') || '}/'
            || (SELECT count(*) FROM bench_terms))::sparsevec AS v
    FROM rag_corpusstat AS k
    CROSS JOIN LATERAL unnest(parley_tsvector(k.config, %(q)s)) AS u
    JOIN bench_terms AS t ON t.config = k.config AND t.term = u.lexeme
    WHERE k.workspace_id = %(ws)s
)
SELECT s.id FROM bench_bm25_sparse AS s ORDER BY s.weights <#> (SELECT v FROM q) LIMIT %(top)s
"""


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
