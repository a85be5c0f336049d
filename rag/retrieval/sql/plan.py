"""The hybrid statement's planner settings, chosen by the scope's size and sent in the statement's round trip."""

from __future__ import annotations

import math
from typing import Any

from django.db import connection

from rag.retrieval.sql.params import HybridParams, statement_values
from rag.retrieval.sql.scope import SCOPE_CTE
from rag.workspace_indexes import workspace_index_name
from textmodels.embeddings import MULTI_MODEL_DIMS

# The planner settings for the hybrid statement, chosen by the scope's size: ef_search and iterative scans
# for the HNSW index, and when the scope holds more chunks than an exact scan should read, `enable_sort =
# off`. PostgreSQL's estimate of the scope (a CTE over a many-to-many) is far too low, so left alone it
# picks an exact scan of every chunk in scope (34 ms at 10k chunks, the vectors are TOASTed) over the HNSW
# walk (1.4 ms, the same top-40 on bench/turn's queries). Under the limit, `enable_indexscan = off` keeps
# the index out: an exact scan (bitmap scans still find the scope's chunks), cheap there and complete (an
# index walk may stop short of a small scope in a large table, at hnsw.max_scan_tuples).
# It is sent with the hybrid statement in one round trip: PostgreSQL runs the statements of one message
# as one transaction, so the settings (`set_config(..., true)`) last for exactly that message.
WALKS = ("own", "shared", "apart")  # the walks of a vector side (rag.retrieval.sql.hybrid)
SETTINGS_RESET = (
    "RESET hnsw.ef_search; RESET hnsw.iterative_scan; RESET enable_sort; RESET enable_indexscan; "
    + "; ".join(f"RESET parley.{side}_{walk}" for side in ("walk", "multi") for walk in WALKS)
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
    """The ef_search a walk over `scope_chunks` chunks runs at (`PLAN_SQL` computes the same in SQL)."""
    return max(int(ef_search), min(WALK_MAX, math.ceil(scope_chunks * WALK_SHARE)))


PLAN_SQL = (
    "WITH"  # noqa: S608 (module constants only)
    + SCOPE_CTE
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


def plan_settings(*, params: HybridParams, ef_search: int, exact_max: int) -> dict[str, Any]:
    """The planner settings `PLAN_SQL` chooses for this scope (and the chunks it counted), for tests and
    diagnosis; they are reset before this returns."""
    with connection.cursor() as cursor:
        cursor.execute(
            PLAN_SQL + SETTINGS_RESET,
            {
                **statement_values(params),
                **settings_values(params=params, ef_search=ef_search, exact_max=exact_max),
            },
        )
        ef, iterative, sort, indexscan, *walks, counted = cursor.fetchone()
    names = [f"parley.{side}_{walk}" for side in ("walk", "multi") for walk in WALKS]
    return {
        "hnsw.ef_search": int(ef),
        "hnsw.iterative_scan": iterative,
        "enable_sort": sort,
        "enable_indexscan": indexscan,
        **dict(zip(names, walks, strict=True)),
        "scope_chunks": int(counted),
    }


def settings_values(*, params: HybridParams, ef_search: int, exact_max: int) -> dict[str, Any]:
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
