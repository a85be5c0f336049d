"""The hybrid retrieval statements over rag_chunk: scope, full-text top-N, cosine top-N and weighted RRF.

bench/retrieval measures these very statements (through `chunks_retrieve`) on the real tables:
- the scope CTE keeps the workspace's ready documents that the caller may read (the bot's or the
  workspace's shared documents, the session's own documents, the external_user_id boundary, and
  an optional list of document ids); both statements start from it;
- the full-text statement (`text_rows`, rag.retrieval.bm25) ranks by Okapi BM25 per text-search configuration
  of the documents in scope, so French chunks get a French query and English chunks an English one; each
  configuration's query is a LATERAL parameter, so the GIN index finds the candidate chunks (a plain
  join made the planner test every chunk of the table). It needs no query vector, so `chunks_retrieve`
  runs it while the question is embedded (`rag.retrieval.concurrent`);
- the hybrid statement (`hybrid_rows`) takes the full-text hits as arrays, walks the partial HNSW index
  of the query's dimension (`embedding::halfvec(N)`, half-precision graphs) filtered on the workspace's
  current embedding model, so models never mix, re-scores the walk's rows at full precision, and fuses
  by the workspace's calibrated method (`rag.retrieval.fusion`, which holds the same formulas in Python):
  weighted RRF, vector_weight / (rrf_k + vector_rank) + text_weight / (rrf_k + text_rank), or the convex
  combination of each side's min-max normalised scores.
A workspace with no vector of its multilingual model yet (its backfill pending) skips that side's walk: an
HNSW walk filtered to rows that do not exist reads the whole shared graph (73 ms at 10k chunks beside a
100k-chunk workspace, against 3 ms for the side that has its vectors).
The final rows carry each chunk's cosine similarity (also for chunks only the full-text side found) and are
checked against the scope once more, so a full-text hit outside it can never come back.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connection

from rag.embeddings import MULTI_MODEL_DIMS
from rag.language import search_config_for, ts_config_map
from rag.retrieval.bm25 import BM25_SQL
from rag.workspace_indexes import workspace_index_name

# `{dims}` is formatted in from an int (never user input): the cast must match the partial index.
# The documents in scope; shared by the plan statement and the query, so both read the same boundary.
_SCOPE_CTE = """
scope AS (
    SELECT d.id, d.language, d.chunk_count, d.chunks_apart FROM rag_document AS d
    WHERE d.workspace_id = %(workspace_id)s AND d.status = 'ready'
      AND (%(external_user_id)s::text IS NULL OR d.external_user_id IN ('', %(external_user_id)s::text))
      AND (%(document_ids)s::uuid[] IS NULL OR d.id = ANY(%(document_ids)s::uuid[]))
      AND (
        (d.conversation_id IS NULL AND (%(bot_ids)s::uuid[] IS NULL OR EXISTS (
            SELECT 1 FROM rag_document_bots AS db
            WHERE db.document_id = d.id AND db.bot_id = ANY(%(bot_ids)s::uuid[]))))
        OR d.conversation_id = %(conversation_id)s::uuid
      )
)"""

# The planner settings for the hybrid statement, chosen by the scope's size: ef_search and iterative scans
# for the HNSW index, and when the scope holds more chunks than an exact scan should read, `enable_sort =
# off`. PostgreSQL's estimate of the scope (a CTE over a many-to-many) is far too low, so left alone it
# picks an exact scan of every chunk in scope (34 ms at 10k chunks, the vectors are TOASTed) over the HNSW
# walk (1.4 ms, the same top-40 on bench/turn's queries). Under the limit, `enable_indexscan = off` keeps
# the index out: an exact scan (bitmap scans still find the scope's chunks), cheap there and complete (an
# index walk may stop short of a small scope in a large table, at hnsw.max_scan_tuples).
# It is sent with the hybrid statement in one round trip: PostgreSQL runs the statements of one message
# as one transaction, so the settings (`set_config(..., true)`) last for exactly that message.
_WALKS = ("own", "shared", "apart")  # rag.retrieval.sql's walks of a vector side (`_hits_sql`)
_SETTINGS_RESET = (
    "RESET hnsw.ef_search; RESET hnsw.iterative_scan; RESET enable_sort; RESET enable_indexscan; "
    + "; ".join(f"RESET parley.{side}_{walk}" for side in ("walk", "multi") for walk in _WALKS)
)

# The HNSW walk's depth grows with the scope: ef_search is at least WALK_SHARE of the chunks in scope, up to
# pgvector's maximum. A graph's recall at a fixed ef_search falls as it grows, the more so where passages
# cluster (bench/scale at 1M rows, a 500k-chunk workspace, recall@10 against exact: 0.81 at ef_search 100,
# 0.86 at 200, 0.91 at 400, 0.94 at 800, 0.97 at 1000; a 50k-chunk one: 0.96 at 100). The walk's rows are
# all re-scored, so the side reads max(candidates, depth) rows: 1.2 ms at 100, 11 ms at 1000 for the 500k
# workspace. docs/decisions/tenant-isolation.md has the runs.
WALK_SHARE = 0.002
WALK_MAX = 1000  # hnsw.ef_search's maximum


def walk_depth(*, scope_chunks: int, ef_search: int) -> int:
    """The ef_search a walk over `scope_chunks` chunks runs at (`_PLAN_SQL` computes the same in SQL)."""
    return max(int(ef_search), min(WALK_MAX, math.ceil(scope_chunks * WALK_SHARE)))


_PLAN_SQL = (
    "WITH"  # noqa: S608 (module constants only)
    + _SCOPE_CTE
    + """
SELECT set_config('hnsw.ef_search',
                  greatest(%(ef_search)s::int, least(%(walk_max)s, ceil(n * %(walk_share)s)::int))::text, true),
       set_config('hnsw.iterative_scan', 'relaxed_order', true),
       set_config('enable_sort', CASE WHEN n > %(exact_max)s THEN 'off' ELSE 'on' END, true),
       set_config('enable_indexscan', CASE WHEN n > %(exact_max)s THEN 'on' ELSE 'off' END, true),
       set_config('parley.walk_own', CASE WHEN own THEN 'on' ELSE 'off' END, true),
       set_config('parley.walk_shared', CASE WHEN NOT own AND shared > 0 THEN 'on' ELSE 'off' END, true),
       set_config('parley.walk_apart', CASE WHEN NOT own AND apart > 0 THEN 'on' ELSE 'off' END, true),
       set_config('parley.multi_own', CASE WHEN multi_own THEN 'on' ELSE 'off' END, true),
       set_config('parley.multi_shared', CASE WHEN NOT multi_own AND shared > 0 THEN 'on' ELSE 'off' END, true),
       set_config('parley.multi_apart', CASE WHEN NOT multi_own AND apart > 0 THEN 'on' ELSE 'off' END, true),
       n
FROM (SELECT coalesce(sum(chunk_count), 0) AS n,
             coalesce(sum(chunk_count) FILTER (WHERE NOT chunks_apart), 0) AS shared,
             coalesce(sum(chunk_count) FILTER (WHERE chunks_apart), 0) AS apart
      FROM scope) AS counted,
     -- whether the workspace's own graphs (rag.workspace_indexes) are built: they hold all its chunks
     LATERAL (SELECT coalesce(bool_or(c.relname = %(own_graph)s), false) AS own,
                     coalesce(bool_or(c.relname = %(own_multi_graph)s), false) AS multi_own
              FROM pg_class AS c JOIN pg_index AS i ON i.indexrelid = c.oid
              WHERE c.relname IN (%(own_graph)s, %(own_multi_graph)s) AND i.indisvalid) AS graphs;
"""
)

# The full-text side: Okapi BM25 with max-score pruning of common lexemes (rag.retrieval.bm25).
_TEXT_SQL = "WITH" + _SCOPE_CTE + BM25_SQL


def _hits_sql(
    *, side: str, column: str, graph: str, query: str, dims: str, where: str, limit: str
) -> str:
    """One vector side's `limit` nearest chunks in scope, with their full-precision cosine distance, by
    whichever plan `_PLAN_SQL` chose (every branch is planned, those whose one-time filter on the settings
    holds run):
    - the HNSW walks (index scans on): ordered by the graph's half-precision expression, as the index
      holds it, then re-scored at full precision by the caller's ranking. A workspace with its own graph
      of the side walks it alone (`own`: it holds all its chunks). Any other walks the shared graph, which
      holds the chunks not kept apart (`shared`), and, should the scope hold chunks kept apart
      (`Document.chunks_apart`, left so while the workspace's own graphs were dropped), those too
      (`apart`: no graph holds them, they are sorted);
    - the exact scan (index scans off, a scope of at most `exact_max` chunks): ordered at full precision
      (sorting by the halfvec expression cost ~1 ms per 500 rows)."""
    distance = f"{column} <=> {query}::vector({dims})"
    scope = "c.document_id IN (SELECT id FROM scope) AND NOT c.quarantined"
    # The walk reads its whole candidate list, ef_search rows as deep as `_PLAN_SQL` set it for the scope
    # (at least `limit`), re-scored at full precision; the caller keeps the best `limit`. A side that is off
    # (`limit` 0) reads none.
    walk = f"CASE WHEN {limit} > 0 THEN greatest({limit}, current_setting('hnsw.ef_search')::int) ELSE 0 END"
    walks = [
        f"""
    (SELECT c.id, {distance} AS distance FROM rag_chunk AS c
     WHERE {where} AND {kept} AND {scope} AND current_setting('enable_indexscan') = 'on'
       AND current_setting('parley.{side}_{name}', true) = 'on'
     ORDER BY {graph} <=> {query}::halfvec({dims}) LIMIT {walk})"""  # noqa: S608 (module constants only)
        for name, kept in zip(
            _WALKS, ("true", "c.shared_indexed", "NOT c.shared_indexed"), strict=True
        )
    ]
    return f"""{" UNION ALL".join(walks)}
    UNION ALL
    (SELECT c.id, {distance} AS distance FROM rag_chunk AS c
     WHERE {where} AND {scope} AND current_setting('enable_indexscan') = 'off'
     ORDER BY {distance} LIMIT {limit})
"""  # noqa: S608 (module constants only)


_HYBRID_SQL = (
    "WITH"  # noqa: S608 (module constants only)
    + _SCOPE_CTE
    + """,
text_ranked AS (
    SELECT t.id, t.score, t.rank
    FROM unnest(%(text_ids)s::uuid[], %(text_scores)s::float8[]) WITH ORDINALITY AS t(id, score, rank)
),
vector_hits AS ("""
    + _hits_sql(
        side="walk",
        column="c.embedding::vector({dims})",
        graph="c.embedding::halfvec({dims})",
        query="%(query_embedding)s",
        dims="{dims}",
        where="""c.workspace_id = %(workspace_id)s AND c.embedding_model = %(model_id)s
      AND c.embedding_dims = {dims}""",
        limit="%(vector_candidates)s",
    )
    + """),
vector_ranked AS (
    SELECT id, 1 - distance AS score, row_number() OVER (ORDER BY distance, id) AS rank
    FROM (SELECT id, distance FROM vector_hits ORDER BY distance, id LIMIT %(vector_candidates)s) AS v
),
-- Whether a document in scope has vectors of the multilingual model: none yet (the backfill has not reached
-- them) means no walk of the shared graph for nothing. Asked once, document by document through the chunks'
-- document index, so the first document that has them answers. (A plain EXISTS on the workspace's chunks
-- let the planner scan the table from its start, ~9 ms per branch when the workspace's rows sit late in it.)
multi_present AS MATERIALIZED (
    SELECT EXISTS (
        SELECT 1 FROM scope AS s CROSS JOIN LATERAL (
            SELECT 1 FROM rag_chunk AS e
            WHERE e.document_id = s.id AND e.embedding_multi_model = %(multi_model_id)s LIMIT 1
        ) AS x
    ) AS present
),
-- the multilingual side: its own column and HNSW index, only vectors of the workspace's multilingual model
multi_hits AS ("""
    + _hits_sql(
        side="multi",
        column="c.embedding_multi",
        graph="c.embedding_multi::halfvec({multi_dims})",
        query="%(multi_embedding)s",
        dims="{multi_dims}",
        where="""c.workspace_id = %(workspace_id)s AND c.embedding_multi_model = %(multi_model_id)s
      AND c.embedding_multi IS NOT NULL""",
        limit="CASE WHEN (SELECT present FROM multi_present) THEN %(multi_candidates)s ELSE 0 END",
    )
    + """),
multi_ranked AS (
    SELECT id, 1 - distance AS score, row_number() OVER (ORDER BY distance, id) AS rank
    FROM (SELECT id, distance FROM multi_hits ORDER BY distance, id LIMIT %(multi_candidates)s) AS m
),
-- each side's score range over its candidates, for the convex combination's min-max normalisation
bounds AS (
    SELECT (SELECT min(score) FROM vector_ranked) AS vmin, (SELECT max(score) FROM vector_ranked) AS vmax,
           (SELECT min(score) FROM multi_ranked) AS mmin, (SELECT max(score) FROM multi_ranked) AS mmax,
           (SELECT min(score) FROM text_ranked) AS tmin, (SELECT max(score) FROM text_ranked) AS tmax
),
found AS (SELECT id FROM vector_ranked UNION SELECT id FROM multi_ranked UNION SELECT id FROM text_ranked),
fused AS (
    SELECT f.id,
           CASE WHEN %(fusion_method)s = 'convex' THEN
                  %(vector_share)s * CASE WHEN v.id IS NULL THEN 0 WHEN b.vmax = b.vmin THEN 1
                                          ELSE (v.score - b.vmin) / (b.vmax - b.vmin) END
                  + %(multi_share)s * CASE WHEN m.id IS NULL THEN 0 WHEN b.mmax = b.mmin THEN 1
                                          ELSE (m.score - b.mmin) / (b.mmax - b.mmin) END
                  + %(text_share)s * CASE WHEN t.id IS NULL THEN 0 WHEN b.tmax = b.tmin THEN 1
                                          ELSE (t.score - b.tmin) / (b.tmax - b.tmin) END
                ELSE coalesce(%(vector_weight)s / (%(rrf_k)s + v.rank), 0)
                  + coalesce(%(multi_weight)s / (%(rrf_k)s + m.rank), 0)
                  + coalesce(%(text_weight)s / (%(rrf_k)s + t.rank), 0)
           END AS fused_score,
           v.rank AS vector_rank, m.score AS multi_score, m.rank AS multi_rank, t.score AS text_score,
           t.rank AS text_rank
    FROM found AS f LEFT JOIN vector_ranked AS v ON v.id = f.id LEFT JOIN multi_ranked AS m ON m.id = f.id
         LEFT JOIN text_ranked AS t ON t.id = f.id CROSS JOIN bounds AS b
    ORDER BY fused_score DESC, id
    LIMIT %(pool)s
)
SELECT f.id, c.document_id, c.text, c.page_number, c.start_time, d.title, d.filename,
       1 - (c.embedding::vector({dims}) <=> %(query_embedding)s::vector({dims})) AS vector_score,
       f.vector_rank, f.text_score, f.text_rank, f.fused_score, c.ordinal, d.chunk_count,
       CASE WHEN c.embedding_multi_model = %(multi_model_id)s
            THEN 1 - (c.embedding_multi <=> %(multi_embedding)s::vector({multi_dims})) END AS multi_score,
       f.multi_rank, d.source_url
FROM fused AS f JOIN rag_chunk AS c ON c.id = f.id JOIN rag_document AS d ON d.id = c.document_id
WHERE d.id IN (SELECT id FROM scope)
ORDER BY f.fused_score DESC, f.id
"""
)


# The languages of the documents in scope, for a question asked in another one (`scope_languages`).
_LANGUAGES_SQL = (
    "WITH"
    + _SCOPE_CTE
    + """
SELECT DISTINCT language FROM scope WHERE language <> '' ORDER BY language
"""
)


@dataclass(frozen=True)
class HybridParams:
    workspace_id: str
    model_id: str
    query_text: str
    query_embedding: Sequence[
        float
    ]  # () for the full-text statement, which runs before the embedding exists
    bot_ids: Sequence[str] | None  # None: every shared document of the workspace
    conversation_id: str | None
    external_user_id: str | None  # None: no boundary (a server key acting for nobody in particular)
    document_ids: Sequence[str] | None
    vector_weight: float
    text_weight: float
    rrf_k: float
    candidates: int
    pool: int  # fused rows returned (before the score threshold, the reranker and top k)
    fusion_method: str = "rrf"  # "rrf" (the weights and rrf_k) or "convex" (the shares)
    vector_share: float = 0.5
    # The multilingual side: its model ("" none), the question's vector of it, its RRF weight and share.
    multi_model_id: str = ""
    multi_embedding: Sequence[float] = ()
    multi_weight: float = 0.0
    multi_share: float = 0.0
    # The question's language (ISO 639-1, '' unknown): the full-text side drops its stop words before
    # analysing it in another language's configuration.
    query_language: str = ""


@dataclass(frozen=True)
class HybridRow:
    chunk_id: str
    document_id: str
    text: str
    page_number: int | None
    start_time: float | None
    title: str
    filename: str
    vector_score: float
    vector_rank: int | None
    text_score: float | None
    text_rank: int | None
    fused_score: float
    # The chunk's place in its document: 0 is its start, chunk_count - 1 its end.
    ordinal: int = 0
    chunk_count: int = 0
    # The multilingual side: cosine similarity (None without a vector of the current model) and rank.
    multi_score: float | None = None
    multi_rank: int | None = None
    source_url: str = ""  # the page a source's document was read from ("" for an upload)


@dataclass(frozen=True)
class TextHit:
    chunk_id: str
    score: float


def text_rows(*, params: HybridParams) -> list[TextHit]:
    """The full-text side: the best `candidates` chunks in scope by BM25, best first (none at weight 0)."""
    if params.text_weight <= 0:
        return []
    with connection.cursor() as cursor:
        cursor.execute(_TEXT_SQL, _values(params))
        return [TextHit(str(chunk_id), float(score)) for chunk_id, score in cursor.fetchall()]


def text_plan(*, params: HybridParams) -> str:
    """The full-text statement's plan (EXPLAIN ANALYZE text), for tests and diagnosis."""
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN ANALYZE " + _TEXT_SQL, _values(params))
        return "\n".join(row[0] for row in cursor.fetchall())


def scope_languages(
    *,
    workspace_id: str,
    bot_ids: Sequence[str] | None,
    conversation_id: str | None,
    external_user_id: str | None,
    document_ids: Sequence[str] | None,
) -> list[str]:
    """The ISO 639-1 languages of the ready documents in scope (the same boundary as a search)."""
    values: dict[str, Any] = {
        "workspace_id": workspace_id,
        "bot_ids": list(bot_ids) if bot_ids is not None else None,
        "conversation_id": conversation_id,
        "external_user_id": external_user_id,
        "document_ids": list(document_ids) if document_ids is not None else None,
    }
    with connection.cursor() as cursor:
        cursor.execute(_LANGUAGES_SQL, values)
        return [language for (language,) in cursor.fetchall()]


def hybrid_rows(
    *, params: HybridParams, text: Sequence[TextHit], ef_search: int, exact_max: int
) -> list[HybridRow]:
    """The vector side fused with the full-text hits, in one round trip: the planner settings chosen by the
    scope's size (`_PLAN_SQL`: exact vector scan or HNSW walk, by that size against `exact_max`), then the
    query. Outside a transaction the settings last for this round trip only; inside one, to its end."""
    with connection.cursor() as cursor:
        rows = _run(
            cursor, params=params, text=text, ef_search=ef_search, exact_max=exact_max, prefix=""
        )
    return [
        HybridRow(
            chunk_id=str(r[0]),
            document_id=str(r[1]),
            text=r[2],
            page_number=r[3],
            start_time=r[4],
            title=r[5],
            filename=r[6],
            vector_score=float(r[7]) if r[7] is not None else 0.0,
            vector_rank=r[8],
            text_score=r[9],
            text_rank=r[10],
            fused_score=float(r[11]),
            ordinal=r[12],
            chunk_count=r[13],
            multi_score=float(r[14]) if r[14] is not None else None,
            multi_rank=r[15],
            source_url=r[16] or "",
        )
        for r in rows
    ]


def hybrid_plan(
    *, params: HybridParams, text: Sequence[TextHit], ef_search: int, exact_max: int
) -> str:
    """The plan PostgreSQL runs for these parameters (EXPLAIN ANALYZE text), for tests and diagnosis."""
    with connection.cursor() as cursor:
        rows = _run(
            cursor,
            params=params,
            text=text,
            ef_search=ef_search,
            exact_max=exact_max,
            prefix="EXPLAIN ANALYZE ",
        )
    return "\n".join(row[0] for row in rows)


def plan_settings(*, params: HybridParams, ef_search: int, exact_max: int) -> dict[str, Any]:
    """The planner settings `_PLAN_SQL` chooses for this scope (and the chunks it counted), for tests and
    diagnosis; they are reset before this returns."""
    with connection.cursor() as cursor:
        cursor.execute(
            _PLAN_SQL + _SETTINGS_RESET,
            {
                **_values(params),
                **_settings_values(params=params, ef_search=ef_search, exact_max=exact_max),
            },
        )
        ef, iterative, sort, indexscan, *walks, counted = cursor.fetchone()
    names = [f"parley.{side}_{walk}" for side in ("walk", "multi") for walk in _WALKS]
    return {
        "hnsw.ef_search": int(ef),
        "hnsw.iterative_scan": iterative,
        "enable_sort": sort,
        "enable_indexscan": indexscan,
        **dict(zip(names, walks, strict=True)),
        "scope_chunks": int(counted),
    }


def _settings_values(*, params: HybridParams, ef_search: int, exact_max: int) -> dict[str, Any]:
    dims = len(params.query_embedding) or len(params.multi_embedding) or 1
    return {
        "ef_search": int(ef_search),
        "exact_max": int(exact_max),
        "walk_share": WALK_SHARE,
        "walk_max": WALK_MAX,
        "own_graph": workspace_index_name(workspace_id=params.workspace_id, kind="half", dims=dims),
        "own_multi_graph": workspace_index_name(
            workspace_id=params.workspace_id, kind="mhalf", dims=MULTI_MODEL_DIMS
        ),
    }


def _run(
    cursor: Any,
    *,
    params: HybridParams,
    text: Sequence[TextHit],
    ef_search: int,
    exact_max: int,
    prefix: str,
) -> Any:
    values = {
        **_values(params),
        "text_ids": [hit.chunk_id for hit in text],
        "text_scores": [hit.score for hit in text],
    }
    dims = len(params.query_embedding) or len(params.multi_embedding) or 1
    multi_dims = len(params.multi_embedding) or MULTI_MODEL_DIMS
    statements = _PLAN_SQL + prefix + _HYBRID_SQL.format(dims=dims, multi_dims=multi_dims)
    if (
        connection.in_atomic_block
    ):  # inside a caller's transaction the settings would outlive this search
        statements += ";\n" + _SETTINGS_RESET
    cursor.execute(
        statements,
        {**values, **_settings_values(params=params, ef_search=ef_search, exact_max=exact_max)},
    )
    cursor.nextset()  # past the settings' row
    return cursor.fetchall()


def _values(params: HybridParams) -> dict[str, Any]:
    languages, configs = ts_config_map()
    return {
        "workspace_id": params.workspace_id,
        "model_id": params.model_id,
        "query_text": params.query_text,
        "query_config": _stop_words_config(params.query_language),
        "query_embedding": _literal(params.query_embedding),
        "multi_model_id": params.multi_model_id,
        "multi_embedding": _literal(params.multi_embedding),
        "multi_weight": float(params.multi_weight),
        "multi_share": float(params.multi_share),
        "multi_candidates": params.candidates
        if params.multi_weight > 0 and params.multi_embedding and params.multi_model_id
        else 0,
        "bot_ids": list(params.bot_ids) if params.bot_ids is not None else None,
        "conversation_id": params.conversation_id,
        "external_user_id": params.external_user_id,
        "document_ids": list(params.document_ids) if params.document_ids is not None else None,
        "languages": languages,
        "configs": configs,
        "vector_weight": float(params.vector_weight),
        "text_weight": float(params.text_weight),
        "rrf_k": float(params.rrf_k),
        "fusion_method": params.fusion_method,
        "vector_share": float(params.vector_share),
        "text_share": max(0.0, 1.0 - float(params.vector_share) - float(params.multi_share)),
        "vector_candidates": params.candidates
        if params.vector_weight > 0 and params.query_embedding
        else 0,
        "text_candidates": params.candidates if params.text_weight > 0 else 0,
        "pool": params.pool,
        "k1": float(settings.RETRIEVAL_BM25_K1),
        "b": float(settings.RETRIEVAL_BM25_B),
        "postings_budget": int(settings.RETRIEVAL_BM25_POSTINGS_BUDGET),
        "safety_budget": int(settings.RETRIEVAL_BM25_SAFETY_BUDGET),
    }


def _literal(vector: Sequence[float]) -> str | None:
    """pgvector's text form, or NULL for a side without a query vector (its LIMIT is then 0)."""
    if not vector:
        return None
    return "[" + ",".join(map(repr, map(float, vector))) + "]"


def _stop_words_config(language: str) -> str | None:
    """The text-search configuration whose stop list a question in `language` loses before it is
    analysed in another language's configuration (None: unknown language, nothing dropped)."""
    config = search_config_for(language) if language else "simple"
    return None if config == "simple" else config
