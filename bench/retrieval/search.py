"""Vector, full-text and hybrid retrieval over a chunk table, in SQL against PostgreSQL + pgvector.

`chunks_hybrid_search` is the piece meant to move into Parley's `rag` retrieval module once the
Chunk model lands: one round trip, both retrievers and the fusion as CTEs. Table and column names
live only in `ChunkTable`.

The full-text side ORs the query's lexemes: `plainto_tsquery` and `websearch_to_tsquery` AND every
term, which rejects most chunks for a natural-language question. The OR query is built from
`plainto_tsquery` (so stemming and stop words follow the chunk's configuration) by swapping its
operators for `|`, and matched per configuration, so French chunks get a French query and English
chunks an English one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import psycopg
from psycopg import sql


@dataclass(frozen=True)
class ChunkTable:
    schema: str
    table: str = "chunk"
    id: str = "id"
    doc_id: str = "doc_id"
    lang: str = "lang"
    config: str = "search_config"  # regconfig the chunk's search_vector was built with
    text: str = "text"
    embedding: str = "embedding"
    search_vector: str = "search_vector"
    search_vector_simple: str = "search_vector_simple"  # bench only: to compare against `simple`

    def ident(self) -> sql.Composed:
        return sql.Identifier(self.schema, self.table)


@dataclass(frozen=True)
class Hit:
    chunk_id: int
    fused_score: float
    vector_score: float | None  # cosine similarity, when the vector side found the chunk
    text_score: float | None  # ts_rank, when the full-text side found the chunk


# Query builders by mode; each yields a tsquery for a (config, text) pair.
TSQUERY_MODES = {
    "or": "regexp_replace(plainto_tsquery({cfg}, {text})::text, '&|<[0-9-]*>', '|', 'g')::tsquery",
    "plain": "plainto_tsquery({cfg}, {text})",
    "websearch": "websearch_to_tsquery({cfg}, {text})",
}
RANKERS = {"ts_rank": "ts_rank", "ts_rank_cd": "ts_rank_cd"}

_HYBRID_SQL = """
WITH query_terms AS (
    SELECT cfg, regexp_replace(plainto_tsquery(cfg, %(query_text)s)::text, '&|<[0-9-]*>', '|', 'g')::tsquery AS terms
    FROM unnest(%(ts_configs)s::regconfig[]) AS cfg
),
text_hits AS (
    SELECT c.{id} AS id, ts_rank(c.{tsv}, q.terms, %(normalization)s) AS score
    FROM {chunk} AS c JOIN query_terms AS q ON c.{cfg} = q.cfg
    WHERE c.{tsv} @@ q.terms
    ORDER BY score DESC, c.{id}
    LIMIT %(text_candidates)s
),
text_ranked AS (
    SELECT id, score, row_number() OVER (ORDER BY score DESC, id) AS rank FROM text_hits
),
vector_hits AS (
    SELECT c.{id} AS id, 1 - (c.{emb} <=> %(query_embedding)s) AS score
    FROM {chunk} AS c
    ORDER BY c.{emb} <=> %(query_embedding)s
    LIMIT %(vector_candidates)s
),
vector_ranked AS (
    SELECT id, score, row_number() OVER (ORDER BY score DESC, id) AS rank FROM vector_hits
),
fused AS (
    SELECT coalesce(v.id, t.id) AS id,
           coalesce(%(vector_weight)s / (%(rrf_k)s + v.rank), 0)
             + coalesce(%(text_weight)s / (%(rrf_k)s + t.rank), 0) AS fused_score,
           v.score AS vector_score,
           t.score AS text_score
    FROM vector_ranked AS v FULL OUTER JOIN text_ranked AS t ON v.id = t.id
)
SELECT id, fused_score, vector_score, text_score
FROM fused
WHERE fused_score >= %(min_score)s
ORDER BY fused_score DESC, id
LIMIT %(k)s
"""


def hybrid_sql(table: ChunkTable) -> sql.Composed:
    return sql.SQL(_HYBRID_SQL).format(
        chunk=table.ident(),
        id=sql.Identifier(table.id),
        cfg=sql.Identifier(table.config),
        tsv=sql.Identifier(table.search_vector),
        emb=sql.Identifier(table.embedding),
    )


def chunks_hybrid_search(
    conn: psycopg.Connection,
    *,
    table: ChunkTable,
    query_text: str,
    query_embedding: np.ndarray,
    ts_configs: Sequence[str],
    k: int,
    vector_weight: float,
    text_weight: float,
    rrf_k: float = 60.0,
    candidates: int = 40,
    normalization: int = 1,
    min_score: float = 0.0,
) -> list[Hit]:
    """Top-k chunks by weighted reciprocal rank fusion of cosine top-N and full-text top-N.

    fused = vector_weight / (rrf_k + vector_rank) + text_weight / (rrf_k + text_rank); a side that
    did not return the chunk adds 0. Chunks scoring under min_score are dropped.
    """
    rows = conn.execute(
        hybrid_sql(table),
        {
            "query_text": query_text,
            "query_embedding": query_embedding,
            "ts_configs": list(ts_configs),
            "k": k,
            "vector_weight": float(vector_weight),
            "text_weight": float(text_weight),
            "rrf_k": float(rrf_k),
            # a side with weight 0 is not run at all: LIMIT 0 stops before the index is scanned
            "vector_candidates": candidates if vector_weight > 0 else 0,
            "text_candidates": candidates if text_weight > 0 else 0,
            "normalization": normalization,
            "min_score": float(min_score),
        },
    ).fetchall()
    return [Hit(chunk_id=row[0], fused_score=row[1], vector_score=row[2], text_score=row[3]) for row in rows]


def chunks_vector_search(
    conn: psycopg.Connection, *, table: ChunkTable, query_embedding: np.ndarray, limit: int
) -> list[tuple[int, float]]:
    """(chunk id, cosine similarity) by HNSW (or exact search when the index is absent)."""
    query = sql.SQL("SELECT {id}, 1 - ({emb} <=> %(e)s) FROM {chunk} ORDER BY {emb} <=> %(e)s LIMIT %(limit)s").format(
        id=sql.Identifier(table.id), emb=sql.Identifier(table.embedding), chunk=table.ident()
    )
    return [(row[0], row[1]) for row in conn.execute(query, {"e": query_embedding, "limit": limit})]


def chunks_text_search(
    conn: psycopg.Connection,
    *,
    table: ChunkTable,
    query_text: str,
    ts_configs: Sequence[str],
    limit: int,
    mode: str = "or",
    ranker: str = "ts_rank",
    normalization: int = 1,
    simple: bool = False,
) -> list[tuple[int, float]]:
    """(chunk id, rank) by full-text search; `simple` uses the bench-only unstemmed vector instead."""
    tsv = sql.Identifier(table.search_vector_simple if simple else table.search_vector)
    terms = sql.SQL(TSQUERY_MODES[mode]).format(cfg=sql.SQL("cfg"), text=sql.Placeholder("text"))
    if simple:
        config_join = sql.SQL("TRUE")
        configs = ["simple"]
    else:
        config_join = sql.SQL("c.{} = q.cfg").format(sql.Identifier(table.config))
        configs = list(ts_configs)
    query = sql.SQL(
        "WITH q AS (SELECT cfg, {terms} AS terms FROM unnest(%(configs)s::regconfig[]) AS cfg)"
        " SELECT c.{id}, {ranker}(c.{tsv}, q.terms, %(norm)s) AS score"
        " FROM {chunk} AS c JOIN q ON {config_join} WHERE c.{tsv} @@ q.terms"
        " ORDER BY score DESC, c.{id} LIMIT %(limit)s"
    ).format(
        terms=terms,
        id=sql.Identifier(table.id),
        ranker=sql.Identifier(RANKERS[ranker]),
        tsv=tsv,
        chunk=table.ident(),
        config_join=config_join,
    )
    params = {"text": query_text, "configs": configs, "norm": normalization, "limit": limit}
    return [(row[0], row[1]) for row in conn.execute(query, params)]
