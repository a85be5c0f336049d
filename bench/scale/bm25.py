"""The product's full-text side on the bench's tables: the statement of rag.retrieval.bm25 (Okapi BM25,
max-score pruning under the postings budget), only its relation renamed, over the product's analysis and
term statistics, created in the bench's database from the migrations' own SQL:

- `parley_fold`, `parley_tsvector`, `parley_tsvector_length` (migration 0003) with the English
  configuration and function of 0008/0009: the bench's rows are analysed as ingestion analyses chunks;
- `rag_corpusstat` and `rag_termstat` of the product's shape (the workspace an int here), filled from
  the rows, and 0003's trigger function `rag_chunk_stats` (bench.scale.ingest puts it on the tables it
  writes to).

The scope is one pseudo-document (id 0, English) that every row belongs to: the bench has no documents.
The workspace goes into the statement as a literal, as Django's client-side binding sends it, so the
planner can match a partial index.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

import psycopg
from django.conf import settings

_STATS_TABLES = """
CREATE TABLE rag_corpusstat (
    workspace_id int NOT NULL, config text NOT NULL, chunks int NOT NULL, length bigint NOT NULL,
    PRIMARY KEY (workspace_id, config));
CREATE TABLE rag_termstat (
    workspace_id int NOT NULL, config text NOT NULL, term text NOT NULL, chunks int NOT NULL,
    PRIMARY KEY (workspace_id, config, term))
"""
_SCOPE = "WITH scope AS MATERIALIZED (SELECT 0 AS id, 'en'::text AS language)"
MODEL = "bench"  # the rows' embedding_model column


def _migration(name: str) -> ModuleType:
    return importlib.import_module(f"rag.migrations.{name}")


def analysis_install(conn: psycopg.Connection[Any]) -> None:
    """The product's text analysis, statistics tables and statistics trigger function."""
    conn.execute(_migration("0003_bm25_term_statistics").FUNCTIONS)
    conn.execute(_migration("0008_bm25_english_stop_words").CONFIG)
    conn.execute(_migration("0009_bm25_english_all_words").FUNCTION)
    triggers: str = _migration("0003_bm25_term_statistics").TRIGGERS
    conn.execute(triggers[: triggers.index("END $$;") + len("END $$;")])
    conn.execute(_STATS_TABLES)


def statistics_fill(conn: psycopg.Connection[Any], table: str) -> None:
    """Every workspace's statistics counted from `table`'s rows (what the trigger keeps as rows come)."""
    conn.execute("TRUNCATE rag_corpusstat, rag_termstat")
    conn.execute(
        f"""INSERT INTO rag_corpusstat SELECT workspace_id, search_config, count(*), sum(search_length)
        FROM {table} GROUP BY 1, 2"""  # noqa: S608
    )
    conn.execute(
        f"""INSERT INTO rag_termstat SELECT r.workspace_id, r.search_config, t.lexeme, count(*)
        FROM {table} AS r, unnest(r.search_vector) AS t GROUP BY 1, 2, 3"""  # noqa: S608
    )
    conn.execute("ANALYZE rag_corpusstat")
    conn.execute("ANALYZE rag_termstat")


def text_sql(table: str, *, workspace: int) -> str:
    """The product's full-text statement over `table`, for one workspace: ids and scores, best first."""
    from rag.retrieval.bm25 import BM25_SQL  # the package loads models: after django.setup()

    statement = _SCOPE + BM25_SQL.replace("FROM rag_chunk AS c", f"FROM {table} AS c")
    return statement.replace("%(workspace_id)s", str(int(workspace)))


def params(question: str) -> dict[str, object]:
    """The statement's other parameters, at the product's settings."""
    from rag.retrieval.bm25 import EXACT_DEPTH  # the package loads models: after django.setup()

    return {
        "query_text": question,
        "query_config": "english",
        "languages": ["en"],
        "configs": ["english"],
        "model_id": MODEL,
        "k1": float(settings.RETRIEVAL_BM25_K1),
        "b": float(settings.RETRIEVAL_BM25_B),
        "postings_budget": int(settings.RETRIEVAL_BM25_POSTINGS_BUDGET),
        "safety_budget": int(settings.RETRIEVAL_BM25_SAFETY_BUDGET),
        "text_candidates": 40,
        "exact_depth": EXACT_DEPTH,
    }
