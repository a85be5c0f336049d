"""Latency of the product's retrieval at 1k/10k/100k chunks, HNSW ef_search recall vs latency, and the
HNSW build time at 64 MB (PostgreSQL's default) vs the product's build memory.

Each size is its own workspace in Parley's tables (`bench-latency-<n>`), cycled from the corpora's
chunks: replicas after the first get uniform noise of ±0.05 per dimension (cosine ≈ 0.87 to the
original: neighbours, not near-duplicates that would degenerate the graph) and keep their text, so
full-text matches grow with the size. Queries are the corpora's real queries. Timings are
`chunks_retrieve`'s own "search" phase with the full-text statement run inline (so it holds every SQL
statement of the search, one after the other, and not the query embedding; in the product the
full-text statement overlaps the embedding instead).
"""

from __future__ import annotations

import statistics
from dataclasses import replace
from pathlib import Path

import numpy as np
from django.db import connection, transaction
from django.test import override_settings

from bench.retrieval.corpus import corpus_load
from bench.retrieval.embed import (
    MULTI_MODEL_NAME,
    embeddings_cached,
    query_vectors_prefill,
    tokenizer_load,
)
from bench.retrieval.evaluate import NO_THRESHOLD
from bench.retrieval.load import Row, workspace_load
from rag.indexes import chunk_indexes_rebuild
from rag.retrieval import FUSION, RetrievalScope, chunks_retrieve
from rag.workspace_indexes import workspace_indexes_sync
from textmodels.embeddings import LOCAL_MODEL_ID, embed_query

CORPORA_ROOT = Path("/work/shared/corpora")
EF_SEARCH_VALUES = (40, 64, 100, 200, 400)
LATENCY_QUERIES = 100
BUILD_MEMORY_MB = (64, 512)  # PostgreSQL's default maintenance_work_mem vs the product's default


def _sources(
    names: list[str] | None = None,
) -> tuple[list[Row], np.ndarray, np.ndarray, list[tuple[str, str]]]:
    """Every corpus's chunks and both models' vectors (or only the named corpora's), and up to 100 real
    queries interleaved across corpora."""
    rows: list[Row] = []
    vectors = []
    multis = []
    per_corpus = []
    folders = sorted(p for p in CORPORA_ROOT.iterdir() if (p / "corpus.jsonl").exists())
    for folder in [f for f in folders if names is None or f.name in names]:
        corpus = corpus_load(folder, tokenizer=tokenizer_load())
        rows += [(f"{corpus.name}:{c.doc_id}", c.lang, c.text) for c in corpus.chunks]
        texts = [c.text for c in corpus.chunks]
        vectors.append(embeddings_cached(f"{corpus.name}-chunks", texts))
        multis.append(embeddings_cached(f"{corpus.name}-chunks", texts, model=MULTI_MODEL_NAME))
        per_corpus.append([(q.text, q.lang) for q in corpus.queries])
    queries = [q for group in zip(*per_corpus, strict=False) for q in group][:LATENCY_QUERIES]
    return rows, np.concatenate(vectors), np.concatenate(multis), queries


def _scaled(
    rows: list[Row], vectors: np.ndarray, multis: np.ndarray, size: int
) -> tuple[list[Row], np.ndarray, np.ndarray]:
    return (
        [rows[i % len(rows)] for i in range(size)],
        _replicated(vectors, size, seed=size),
        _replicated(multis, size, seed=size + 1),
    )


def _replicated(vectors: np.ndarray, size: int, *, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = np.empty((size, vectors.shape[1]), dtype=np.float32)
    for i in range(size):
        vector = vectors[i % len(vectors)]
        if i >= len(vectors):
            vector = vector + rng.uniform(-0.05, 0.05, vector.shape).astype(np.float32)
            vector = vector / np.linalg.norm(vector)
        out[i] = vector
    return out


def _p(values: list[float], q: int) -> float:
    return (
        statistics.quantiles(values, n=100, method="inclusive")[q - 1]
        if len(values) > 1
        else values[0]
    )


def _search(
    scope: RetrievalScope, text: str, lang: str, mode: str, **fusion: int
) -> tuple[float, list[str]]:
    result = chunks_retrieve(
        scope=scope,
        question=text,
        language=lang,
        mode=mode,  # type: ignore[arg-type]
        top_k=FUSION.candidates,
        score_threshold=NO_THRESHOLD,
        fusion=replace(FUSION, **fusion),
    )
    return float(result.latencies["search"]), [hit.id for hit in result.hits]


def _exact_top(scope: RetrievalScope, text: str) -> set[str]:
    vector = "[" + ",".join(repr(float(x)) for x in embed_query(text)) + "]"
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_indexscan = off")
        cursor.execute(
            "SELECT id FROM rag_chunk WHERE workspace_id = %s AND embedding_model = %s AND embedding_dims = 384"
            " ORDER BY embedding::vector(384) <=> %s::vector(384) LIMIT %s",
            [scope.workspace_id, LOCAL_MODEL_ID, vector, FUSION.candidates],
        )
        return {str(row[0]) for row in cursor.fetchall()}


def latency_report(
    *, sizes: list[int], corpora: list[str] | None = None, search_only: bool = False
) -> None:
    """`search_only`: only the search-phase table (no HNSW build, no ef_search table)."""
    rows, vectors, multis, queries = _sources(corpora)
    query_vectors_prefill([text for text, _ in queries])
    print(
        f"\nlatency: {len(queries)} real queries; {len(rows)} corpus chunks"
        f" ({', '.join(corpora) if corpora else 'every shared corpus'}) cycled to each size"
    )
    scopes = {}
    for size in sizes:
        workspace, bot = workspace_load(
            f"bench-latency-{size}", *_scaled(rows, vectors, multis, size)
        )
        scopes[size] = RetrievalScope(
            workspace_id=str(workspace.pk), bot_ids=[str(bot.pk)], external_user_id=""
        )
    # A large workspace searches its own graphs and GIN, which the product's beat task keeps in step with
    # the release (a database loaded by an older release holds older graphs, or none).
    synced = workspace_indexes_sync()
    if synced.created or synced.dropped:
        print(f"workspace indexes: built {len(synced.created)}, dropped {len(synced.dropped)}")
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM rag_chunk WHERE embedding_dims = 384")
        indexed = cursor.fetchone()[0]
    print(
        f"\nHNSW build (`rag.indexes.chunk_indexes_rebuild`, REINDEX) of the 384-d index over {indexed} chunks"
    )
    print(f"  {'maintenance_work_mem':>21} {'seconds':>8}")
    for memory in () if search_only else BUILD_MEMORY_MB:
        (build,) = chunk_indexes_rebuild(dims=[384], memory_mb=memory)
        print(f"  {build.memory:>21} {build.seconds:>8.1f}", flush=True)
    # The full-text statement inline (no thread pool): the search phase then holds both SQL statements.
    with override_settings(RERANKER_URL="", RETRIEVAL_TEXT_THREADS=0):
        for size, scope in scopes.items():
            if size >= 10_000 and not search_only:
                _ef_search_report(scope, size, queries)
        print(
            f"\nsearch phase of chunks_retrieve (its SQL statements one after the other, no embedding),"
            f" N={FUSION.candidates}"
        )
        modes = ("hybrid", "vector", "multi", "text")
        print(f"  {'chunks':>7}" + "".join(f" {mode + ' p50':>11} {'p95':>7}" for mode in modes))
        for size, scope in scopes.items():
            cells = []
            for mode in modes:
                timings = [_search(scope, text, lang, mode)[0] for text, lang in queries]
                cells += [_p(timings, 50), _p(timings, 95)]
            print(
                f"  {size:>7}"
                + "".join(f" {cells[i]:>11.1f} {cells[i + 1]:>7.1f}" for i in range(0, 8, 2)),
                flush=True,
            )


def _ef_search_report(scope: RetrievalScope, size: int, queries: list[tuple[str, str]]) -> None:
    print(
        f"\nef_search at {size} chunks: recall of the product's vector top-{FUSION.candidates} against exact search"
    )
    exact = [_exact_top(scope, text) for text, _ in queries]
    print(f"  {'ef_search':>9} {'recall':>7} {'p50 ms':>7} {'p95 ms':>7}")
    for ef in EF_SEARCH_VALUES:
        found, timings = [], []
        for (text, lang), truth in zip(queries, exact, strict=True):
            ms, ids = _search(scope, text, lang, "vector", ef_search=ef)
            timings.append(ms)
            found.append(len(set(ids) & truth) / len(truth))
        print(
            f"  {ef:>9} {statistics.mean(found):>7.3f} {_p(timings, 50):>7.1f} {_p(timings, 95):>7.1f}",
            flush=True,
        )
