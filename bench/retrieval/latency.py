"""Latency of the hybrid query at 1k/10k/100k chunks, HNSW ef_search recall vs latency, index build times.

The synthetic tables are built from the corpus tables already loaded in the bench database
(run the accuracy benchmark first): real chunks are cycled until the size is reached; each
replica after the first gets its vector perturbed by uniform noise of ±0.05 per dimension
(cosine ≈ 0.87 to its original, so replicas are neighbours, not near-duplicates that would
degenerate the HNSW graph) and keeps its text, so full-text matches grow with the size.
Queries are the corpora's real queries with their cached embeddings.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import numpy as np
import psycopg
from psycopg import sql

from bench.retrieval import store
from bench.retrieval.corpus import _jsonl, language_detect
from bench.retrieval.embed import embeddings_cached
from bench.retrieval.evaluate import DEFAULTS
from bench.retrieval.search import ChunkTable, chunks_hybrid_search, chunks_text_search, chunks_vector_search

CORPORA_ROOT = Path("/work/shared/corpora")
EF_SEARCH_VALUES = (40, 64, 100, 200, 400)
DEFAULT_EF_SEARCH = 100
LATENCY_QUERIES = 100
BUILD_MEMORY = ("64MB", "512MB")  # PostgreSQL's default maintenance_work_mem vs the recommendation


def _source_tables(conn: psycopg.Connection) -> list[ChunkTable]:
    rows = conn.execute(
        "SELECT table_schema FROM information_schema.tables WHERE table_name = 'chunk'"
        " AND table_schema LIKE 'bench\\_%%' AND table_schema NOT LIKE 'bench\\_latency%%' ORDER BY 1"
    ).fetchall()
    return [ChunkTable(schema=row[0]) for row in rows]


def _queries() -> list[tuple[str, str, np.ndarray]]:
    """(text, lang, embedding) for the corpora's queries, interleaved so every language is represented."""
    per_corpus = []
    for folder in sorted(p for p in CORPORA_ROOT.iterdir() if p.is_dir()):
        queries = _jsonl(folder / "queries.jsonl")
        relevant = {line.split("\t")[0] for line in (folder / "qrels.tsv").read_text().splitlines()[1:]}
        texts = [q["text"] for q in queries if q["_id"] in relevant]
        vectors = embeddings_cached(f"{folder.name}-queries", texts)
        per_corpus.append([(t, language_detect(t), v) for t, v in zip(texts, vectors, strict=True)])
    mixed = [q for group in zip(*per_corpus, strict=False) for q in group]
    return mixed[:LATENCY_QUERIES]


def synthetic_table_build(conn: psycopg.Connection, size: int, sources: list[ChunkTable]) -> ChunkTable:
    table = ChunkTable(schema=f"bench_latency_{size}")
    source_rows = sum(conn.execute(sql.SQL("SELECT count(*) FROM {}").format(s.ident())).fetchone()[0] for s in sources)
    store.table_create(conn, table, dimensions=384)
    union = sql.SQL(" UNION ALL ").join(
        sql.SQL("SELECT {d}, {l}, {c}, {x}, {e}, {t}, {s} FROM {src}").format(
            d=sql.Identifier(table.doc_id),
            l=sql.Identifier(table.lang),
            c=sql.Identifier(table.config),
            x=sql.Identifier(table.text),
            e=sql.Identifier(table.embedding),
            t=sql.Identifier(table.search_vector),
            s=sql.Identifier(table.search_vector_simple),
            src=src.ident(),
        )
        for src in sources
    )
    conn.execute(
        sql.SQL(
            "INSERT INTO {t} SELECT row_number() OVER (), doc_id, lang, search_config, text,"
            " CASE WHEN r = 0 THEN embedding ELSE (SELECT array_agg(x + (random() - 0.5) * 0.1)"
            " FROM unnest(embedding::real[]) AS x)::vector END, search_vector, search_vector_simple"
            " FROM ({u}) AS src, generate_series(0, %(replicas)s) AS r"
            " ORDER BY r, md5(text) LIMIT %(size)s"
        ).format(t=table.ident(), u=union),
        {"replicas": size // source_rows, "size": size},
    )
    for column in (table.search_vector, table.search_vector_simple):
        conn.execute(sql.SQL("CREATE INDEX ON {} USING gin ({})").format(table.ident(), sql.Identifier(column)))
    return table


def _percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else values[0]


def latency_report(conn: psycopg.Connection, *, sizes: list[int]) -> None:
    sources = _source_tables(conn)
    if not sources:
        raise SystemExit("no corpus tables in the bench database yet: run the accuracy benchmark first")
    queries = _queries()
    notices: list[str] = []
    conn.add_notice_handler(lambda diag: notices.append(diag.message_primary or ""))
    workers = conn.execute("SHOW max_parallel_maintenance_workers").fetchone()[0]
    print(
        f"\nlatency: {len(queries)} real queries; sources {', '.join(s.schema for s in sources)};"
        f" max_parallel_maintenance_workers={workers}"
    )
    print(f"  {'chunks':>7} {'build':>8} {'hnsw mem':>9} {'build s':>8}   notes")
    tables = {}
    for size in sizes:
        table = synthetic_table_build(conn, size, sources)
        for memory in BUILD_MEMORY if size >= 100_000 else BUILD_MEMORY[:1]:
            notices.clear()
            seconds = store.hnsw_build(conn, table, maintenance_work_mem=memory)
            note = "; ".join(n for n in notices if "maintenance_work_mem" in n)
            print(f"  {size:>7} {'hnsw':>8} {memory:>9} {seconds:>8.1f}   {note}", flush=True)
        tables[size] = table
    for size, table in tables.items():
        if size >= 10_000:
            _ef_search_report(conn, table, size, queries)
    conn.execute(sql.SQL("SET hnsw.ef_search = {}").format(sql.Literal(DEFAULT_EF_SEARCH)))
    print(f"\nhybrid query (one round trip), ef_search={DEFAULT_EF_SEARCH}, N={DEFAULTS.candidates}, k={DEFAULTS.k}")
    print("  vector / full-text: each retriever alone (top-N), for where the time goes")
    print(f"  {'chunks':>7} {'p50 ms':>7} {'p95 ms':>7} {'vector p50':>11} {'full-text p50':>14} {'text p95':>9}")
    for size, table in tables.items():
        hybrid, vector, text = [], [], []
        for query_text, lang, embedding in queries:
            common = {"table": table, "query_embedding": embedding}
            texts = {"table": table, "query_text": query_text, "ts_configs": ["english", "french"]}
            hybrid.append(
                _timed(
                    chunks_hybrid_search,
                    conn,
                    **common,
                    query_text=query_text,
                    ts_configs=["english", "french"],
                    k=DEFAULTS.k,
                    vector_weight=DEFAULTS.vector_weight(lang),
                    text_weight=DEFAULTS.text_weight,
                    rrf_k=DEFAULTS.rrf_k,
                    candidates=DEFAULTS.candidates,
                    normalization=DEFAULTS.normalization,
                )
            )
            vector.append(_timed(chunks_vector_search, conn, **common, limit=DEFAULTS.candidates))
            text.append(
                _timed(
                    chunks_text_search, conn, **texts, limit=DEFAULTS.candidates, normalization=DEFAULTS.normalization
                )
            )
        print(
            f"  {size:>7} {_percentile(hybrid, 50):>7.1f} {_percentile(hybrid, 95):>7.1f}"
            f" {_percentile(vector, 50):>11.1f} {_percentile(text, 50):>14.1f} {_percentile(text, 95):>9.1f}",
            flush=True,
        )


def _timed(call, *args, **kwargs) -> float:
    started = time.perf_counter()
    call(*args, **kwargs)
    return (time.perf_counter() - started) * 1000


def _ef_search_report(conn: psycopg.Connection, table: ChunkTable, size: int, queries) -> None:
    print(f"\nef_search at {size} chunks: recall of the HNSW top-{DEFAULTS.candidates} against exact search")
    exact = _exact_top(conn, table, queries)
    print(f"  {'ef_search':>9} {'recall':>7} {'p50 ms':>7} {'p95 ms':>7}")
    for ef in EF_SEARCH_VALUES:
        conn.execute(sql.SQL("SET hnsw.ef_search = {}").format(sql.Literal(ef)))
        found, timings = [], []
        for (_, _, vector), truth in zip(queries, exact, strict=True):
            started = time.perf_counter()
            hits = chunks_vector_search(conn, table=table, query_embedding=vector, limit=DEFAULTS.candidates)
            timings.append((time.perf_counter() - started) * 1000)
            found.append(len({cid for cid, _ in hits} & truth) / len(truth))
        p50, p95 = _percentile(timings, 50), _percentile(timings, 95)
        print(f"  {ef:>9} {statistics.mean(found):>7.3f} {p50:>7.1f} {p95:>7.1f}", flush=True)


def _exact_top(conn: psycopg.Connection, table: ChunkTable, queries) -> list[set[int]]:
    conn.execute("SET enable_indexscan = off")
    try:
        return [
            {cid for cid, _ in chunks_vector_search(conn, table=table, query_embedding=v, limit=DEFAULTS.candidates)}
            for _, _, v in queries
        ]
    finally:
        conn.execute("RESET enable_indexscan")
