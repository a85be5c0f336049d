"""The full-text side's statement over the scope: Okapi BM25 with max-score pruning (rag.retrieval.bm25)."""

from __future__ import annotations

from django.db import connection

from rag.retrieval.bm25 import BM25_SQL
from rag.retrieval.sql.params import HybridParams, TextHit, statement_values
from rag.retrieval.sql.scope import SCOPE_CTE

_TEXT_SQL = "WITH" + SCOPE_CTE + BM25_SQL


def text_rows(*, params: HybridParams) -> list[TextHit]:
    """The full-text side: the best `candidates` chunks in scope by BM25, best first (none at weight 0)."""
    if params.text_weight <= 0:
        return []
    with connection.cursor() as cursor:
        cursor.execute(_TEXT_SQL, statement_values(params))
        return [TextHit(str(chunk_id), float(score)) for chunk_id, score in cursor.fetchall()]


def text_plan(*, params: HybridParams) -> str:
    """The full-text statement's plan (EXPLAIN ANALYZE text), for tests and diagnosis."""
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN ANALYZE " + _TEXT_SQL, statement_values(params))
        return "\n".join(row[0] for row in cursor.fetchall())
