"""Accuracy run on one corpus: vector-only, full-text-only, hybrid (and reranker: n/a offline).

Candidates of each retriever are fetched once per query; `--sweep` then scores full-text variants
and fusion settings in Python from those lists, while the reported "hybrid" row calls the real
one-round-trip SQL (`chunks_hybrid_search`) with the chosen defaults.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import psycopg
from psycopg import sql

from bench.retrieval import store
from bench.retrieval.corpus import Corpus, corpus_load
from bench.retrieval.embed import MODEL_NAME, embeddings_cached, tokenizer_load
from bench.retrieval.metrics import Scores, documents_ranked, rrf_fuse, score_fuse, scores_compute
from bench.retrieval.search import ChunkTable, chunks_hybrid_search, chunks_text_search, chunks_vector_search

MODEL_LANGUAGE = "en"
CANDIDATE_POOL = 100  # fetched once per query for the sweeps; hnsw.ef_search is raised to match


@dataclass(frozen=True)
class FusionDefaults:
    """Chosen from `--sweep fusion` on the three corpora (see bench/README.md for the figures)."""

    rrf_k: float = 10.0
    candidates: int = 40  # top-N of each retriever; hnsw.ef_search must be at least this
    text_weight: float = 0.5
    vector_weight_native: float = 1.0  # query in the embedding model's language: vector 2 : text 1
    vector_weight_foreign: float = 0.0  # other languages: the English model only hurts recall@5 there
    normalization: int = 1  # ts_rank: divide by 1 + log(chunk length)
    k: int = 10

    def vector_weight(self, query_lang: str) -> float:
        return self.vector_weight_native if query_lang == MODEL_LANGUAGE else self.vector_weight_foreign


DEFAULTS = FusionDefaults()


@dataclass
class Prepared:
    corpus: Corpus
    table: ChunkTable
    query_vectors: np.ndarray
    ts_configs: list[str]
    doc_of: dict[int, str]
    vector: list[list[tuple[int, float]]]
    text: list[list[tuple[int, float]]]


def corpus_prepare(conn: psycopg.Connection, folder: Path, *, limit_queries: int | None) -> Prepared:
    corpus = corpus_load(folder, tokenizer=tokenizer_load())
    vectors = embeddings_cached(f"{corpus.name}-chunks", [c.text for c in corpus.chunks])
    query_vectors = embeddings_cached(f"{corpus.name}-queries", [q.text for q in corpus.queries])
    if limit_queries:
        corpus.queries[:] = corpus.queries[:limit_queries]
        query_vectors = query_vectors[:limit_queries]
    table = ChunkTable(schema=store.schema_name(corpus.name))
    marker = f"{MODEL_NAME}:{len(corpus.chunks)}:" + hashlib.sha256(vectors.tobytes()).hexdigest()[:12]
    if _table_marker(conn, table) != marker:
        started = time.perf_counter()
        store.table_create(conn, table, dimensions=vectors.shape[1])
        store.rows_load(conn, table, corpus.chunks, vectors)
        store.indexes_create(conn, table)
        conn.execute(sql.SQL("COMMENT ON TABLE {} IS {}").format(table.ident(), sql.Literal(marker)))
        print(f"  loaded {len(corpus.chunks)} chunks into {table.schema} in {time.perf_counter() - started:.0f}s")
    configs = sorted({store.ts_config_for(c.lang) for c in corpus.chunks})
    conn.execute(sql.SQL("SET hnsw.ef_search = {}").format(sql.Literal(CANDIDATE_POOL)))
    vector = [chunks_vector_search(conn, table=table, query_embedding=qv, limit=CANDIDATE_POOL) for qv in query_vectors]
    text = [text_candidates(conn, table, q.text, configs) for q in corpus.queries]
    return Prepared(corpus, table, query_vectors, configs, {c.chunk_id: c.doc_id for c in corpus.chunks}, vector, text)


def text_candidates(conn, table, text, configs, **variant) -> list[tuple[int, float]]:
    options = {"mode": "or", "ranker": "ts_rank", "normalization": DEFAULTS.normalization} | variant
    return chunks_text_search(conn, table=table, query_text=text, ts_configs=configs, limit=CANDIDATE_POOL, **options)


def _table_marker(conn: psycopg.Connection, table: ChunkTable) -> str | None:
    row = conn.execute("SELECT obj_description(to_regclass(%s), 'pg_class')", (f"{table.schema}.{table.table}",))
    return row.fetchone()[0]


def score_lists(prepared: Prepared, ranked_chunks: list[list[int]]) -> Scores:
    docs = [documents_ranked(chunks, prepared.doc_of) for chunks in ranked_chunks]
    return scores_compute(docs, [q.relevant for q in prepared.corpus.queries])


def strategies_score(conn: psycopg.Connection, prepared: Prepared, defaults: FusionDefaults = DEFAULTS) -> dict:
    """The side-by-side rows: each strategy's Scores (None when unavailable)."""
    hybrid = []
    for query, query_vector in zip(prepared.corpus.queries, prepared.query_vectors, strict=True):
        hits = chunks_hybrid_search(
            conn,
            table=prepared.table,
            query_text=query.text,
            query_embedding=query_vector,
            ts_configs=prepared.ts_configs,
            k=defaults.candidates * 2,  # enough chunks to fill 10 distinct documents
            vector_weight=defaults.vector_weight(query.lang),
            text_weight=defaults.text_weight,
            rrf_k=defaults.rrf_k,
            candidates=defaults.candidates,
            normalization=defaults.normalization,
        )
        hybrid.append([hit.chunk_id for hit in hits])
    return {
        "vector only": score_lists(prepared, [[cid for cid, _ in hits] for hits in prepared.vector]),
        "full-text only": score_lists(prepared, [[cid for cid, _ in hits] for hits in prepared.text]),
        "hybrid (weighted RRF)": score_lists(prepared, hybrid),
        "hybrid + reranker": None,
    }


def text_variants_sweep(conn: psycopg.Connection, prepared: Prepared) -> dict[str, Scores]:
    """Full-text variants: AND queries vs the OR query, ts_rank vs ts_rank_cd, language config vs simple."""
    variants = [("plain", "ts_rank", 1, False), ("websearch", "ts_rank", 1, False)]
    variants += [("or", ranker, norm, False) for ranker in ("ts_rank", "ts_rank_cd") for norm in (0, 1)]
    variants += [("or", "ts_rank", norm, True) for norm in (0, 1)]
    rows = {}
    for mode, ranker, norm, simple in variants:
        lists = [
            text_candidates(
                conn,
                prepared.table,
                q.text,
                prepared.ts_configs,
                mode=mode,
                ranker=ranker,
                normalization=norm,
                simple=simple,
            )
            for q in prepared.corpus.queries
        ]
        config = "simple" if simple else "/".join(prepared.ts_configs)
        rows[f"{config:8} {mode:9} {ranker}/{norm}"] = score_lists(prepared, [[c for c, _ in h] for h in lists])
    return rows


RATIOS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 3.0, 5.0)  # vector weight / text weight
RRF_KS = (10, 60)
DEPTHS = (20, 40, 100)


def fusion_sweep(prepared: Prepared) -> dict[tuple[int, int], list[Scores]]:
    """(rrf_k, depth N) → Scores for each vector/text weight ratio in RATIOS (text weight 1)."""
    grid = {}
    for rrf_k in RRF_KS:
        for depth in DEPTHS:
            grid[(rrf_k, depth)] = [
                score_lists(
                    prepared,
                    [
                        rrf_fuse(v, t, vector_weight=ratio, text_weight=1.0, rrf_k=rrf_k, depth=depth)
                        for v, t in zip(prepared.vector, prepared.text, strict=True)
                    ],
                )
                for ratio in RATIOS
            ]
    return grid


SHARES = (0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9)


def score_fusion_sweep(prepared: Prepared, depth: int = 40) -> list[Scores]:
    """Min-max score fusion for each vector share in SHARES."""
    return [
        score_lists(
            prepared,
            [
                score_fuse(v, t, vector_weight=share, depth=depth)
                for v, t in zip(prepared.vector, prepared.text, strict=True)
            ],
        )
        for share in SHARES
    ]
