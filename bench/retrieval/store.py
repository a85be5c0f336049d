"""The bench's own database (`parley_bench`, beside Parley's) and its chunk tables, one schema per corpus.

Tables mirror what Parley's Chunk model will hold: id, the document it counts for, its language,
text, `embedding vector(384)` under an HNSW cosine index, and a `search_vector tsvector` under GIN,
built in the chunk's own text-search configuration (`search_config`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql

from bench.retrieval.corpus import Chunk
from bench.retrieval.search import ChunkTable

BENCH_DATABASE = "parley_bench"
TS_CONFIGS = {"fr": "french", "en": "english"}  # anything else: "simple" (no stemming, no stop words)
VAR_DIR = Path(__file__).resolve().parents[2] / "var"


def ts_config_for(lang: str) -> str:
    return TS_CONFIGS.get(lang, "simple")


@contextmanager
def bench_connection() -> Iterator[psycopg.Connection]:
    """Connect to the bench database on the worktree's embedded PostgreSQL, starting it if needed."""
    from core.embedded import ensure_started

    services = ensure_started(VAR_DIR)
    try:
        with psycopg.connect(services.database_url, autocommit=True) as admin:
            if not admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (BENCH_DATABASE,)).fetchone():
                admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(BENCH_DATABASE)))
        url = re.sub(r"/[^/?]*\?", f"/{BENCH_DATABASE}?", services.database_url, count=1)
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            register_vector(conn)
            yield conn
    finally:
        services.stop()  # only what this process started


def schema_name(corpus: str) -> str:
    return "bench_" + re.sub(r"[^a-z0-9]+", "_", corpus.lower()).strip("_")


def table_create(conn: psycopg.Connection, table: ChunkTable, *, dimensions: int) -> None:
    conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(table.schema)))
    conn.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(table.ident()))
    conn.execute(
        sql.SQL(
            "CREATE TABLE {t} ({id} bigint PRIMARY KEY, {doc} text NOT NULL, {lang} text NOT NULL,"
            " {cfg} regconfig NOT NULL, {text} text NOT NULL, {emb} vector({dims}) NOT NULL,"
            " {tsv} tsvector NOT NULL, {tsv_simple} tsvector NOT NULL)"
        ).format(
            t=table.ident(),
            id=sql.Identifier(table.id),
            doc=sql.Identifier(table.doc_id),
            lang=sql.Identifier(table.lang),
            cfg=sql.Identifier(table.config),
            text=sql.Identifier(table.text),
            emb=sql.Identifier(table.embedding),
            tsv=sql.Identifier(table.search_vector),
            tsv_simple=sql.Identifier(table.search_vector_simple),
            dims=sql.Literal(dimensions),
        )
    )


def _vector_text(vector: np.ndarray) -> str:
    return "[" + ",".join(f"{x:.6f}" for x in vector) + "]"


def rows_load(conn: psycopg.Connection, table: ChunkTable, chunks: Sequence[Chunk], vectors: np.ndarray) -> None:
    """COPY chunks in, then fill both tsvectors in SQL (the chunk's language config, and `simple`)."""
    columns = [table.id, table.doc_id, table.lang, table.config, table.text, table.embedding]
    copy = sql.SQL("COPY {} ({}) FROM STDIN").format(table.ident(), sql.SQL(", ").join(map(sql.Identifier, columns)))
    # tsvectors are NOT NULL: load into a staging default, then compute.
    for column in (table.search_vector, table.search_vector_simple):
        conn.execute(
            sql.SQL("ALTER TABLE {} ALTER COLUMN {} SET DEFAULT ''::tsvector").format(
                table.ident(), sql.Identifier(column)
            )
        )
    with conn.cursor() as cur, cur.copy(copy) as writer:
        for chunk, vector in zip(chunks, vectors, strict=True):
            writer.write_row(
                (chunk.chunk_id, chunk.doc_id, chunk.lang, ts_config_for(chunk.lang), chunk.text, _vector_text(vector))
            )
    conn.execute(
        sql.SQL(
            "UPDATE {t} SET {tsv} = to_tsvector({cfg}, {text}), {tsv_simple} = to_tsvector('simple', {text})"
        ).format(
            t=table.ident(),
            tsv=sql.Identifier(table.search_vector),
            tsv_simple=sql.Identifier(table.search_vector_simple),
            cfg=sql.Identifier(table.config),
            text=sql.Identifier(table.text),
        )
    )


def indexes_create(conn: psycopg.Connection, table: ChunkTable, *, maintenance_work_mem: str = "256MB") -> float:
    """GIN on both tsvectors, then HNSW (cosine); returns the HNSW build time in seconds."""
    for column in (table.search_vector, table.search_vector_simple):
        conn.execute(sql.SQL("CREATE INDEX ON {} USING gin ({})").format(table.ident(), sql.Identifier(column)))
    return hnsw_build(conn, table, maintenance_work_mem=maintenance_work_mem)


def hnsw_build(conn: psycopg.Connection, table: ChunkTable, *, maintenance_work_mem: str) -> float:
    index = sql.Identifier(f"{table.table}_{table.embedding}_hnsw")
    conn.execute(sql.SQL("DROP INDEX IF EXISTS {}.{}").format(sql.Identifier(table.schema), index))
    conn.execute(sql.SQL("SET maintenance_work_mem = {}").format(sql.Literal(maintenance_work_mem)))
    started = time.perf_counter()
    conn.execute(
        sql.SQL("CREATE INDEX {} ON {} USING hnsw ({} vector_cosine_ops)").format(
            index, table.ident(), sql.Identifier(table.embedding)
        )
    )
    elapsed = time.perf_counter() - started
    conn.execute("RESET maintenance_work_mem")
    conn.execute(sql.SQL("ANALYZE {}").format(table.ident()))
    return elapsed
