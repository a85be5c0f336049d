"""The hybrid statement: both vector sides' walks over the scope fused with the full-text hits, in one round
trip with the planner settings (rag.retrieval.sql.plan)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import connection

from rag.retrieval.sql.params import HybridParams, HybridRow, TextHit, statement_values
from rag.retrieval.sql.plan import PLAN_SQL, SETTINGS_RESET, WALKS, settings_values
from rag.retrieval.sql.scope import SCOPE_CTE
from textmodels.embeddings import MULTI_MODEL_DIMS


def _hits_sql(
    *, side: str, column: str, graph: str, query: str, dims: str, where: str, limit: str
) -> str:
    """One vector side's `limit` nearest chunks in scope, with their full-precision cosine distance, by
    whichever plan `PLAN_SQL` chose (every branch is planned, those whose one-time filter on the settings
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
    # The walk reads its whole candidate list, ef_search rows as deep as `PLAN_SQL` set it for the scope
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
            WALKS, ("true", "c.shared_indexed", "NOT c.shared_indexed"), strict=True
        )
    ]
    return f"""{" UNION ALL".join(walks)}
    UNION ALL
    (SELECT c.id, {distance} AS distance FROM rag_chunk AS c
     WHERE {where} AND {scope} AND current_setting('enable_indexscan') = 'off'
     ORDER BY {distance} LIMIT {limit})
"""  # noqa: S608 (module constants only)


# `{dims}` is formatted in from an int (never user input): the cast must match the partial index.
_HYBRID_SQL = (
    "WITH"  # noqa: S608 (module constants only)
    + SCOPE_CTE
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


def hybrid_rows(
    *, params: HybridParams, text: Sequence[TextHit], ef_search: int, exact_max: int
) -> list[HybridRow]:
    """The vector side fused with the full-text hits, in one round trip: the planner settings chosen by the
    scope's size (`PLAN_SQL`: exact vector scan or HNSW walk, by that size against `exact_max`), then the
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
            source_url=r[16],
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
        **statement_values(params),
        "text_ids": [hit.chunk_id for hit in text],
        "text_scores": [hit.score for hit in text],
    }
    dims = len(params.query_embedding) or len(params.multi_embedding) or 1
    multi_dims = len(params.multi_embedding) or MULTI_MODEL_DIMS
    statements = PLAN_SQL + prefix + _HYBRID_SQL.format(dims=dims, multi_dims=multi_dims)
    if (
        connection.in_atomic_block
    ):  # inside a caller's transaction the settings would outlive this search
        statements += ";\n" + SETTINGS_RESET
    cursor.execute(
        statements,
        {**values, **settings_values(params=params, ef_search=ef_search, exact_max=exact_max)},
    )
    cursor.nextset()  # past the settings' row
    return cursor.fetchall()
