"""`python -m bench.scale CORPUS --chunks N`: tenant-isolated layouts against the plain baseline.

Builds N rows over 100 workspaces (bench.scale.data) in a database of its own on the embedded
PostgreSQL (sized by core.pg_sizing), then prints for each layout (bench.scale.layouts) and each
tenant class: search-phase p50/p95 of vector, full-text and hybrid statements (the isolated layouts'
full text is the product's BM25 statement, bench.scale.bm25; the plain baseline's ts_rank), vector recall@10
against exact search, index build time, disk per million rows; halfvec's recall at the product's
ef_search; and ingest throughput at 10k and at N existing rows (bench.scale.ingest).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import psycopg
from django.conf import settings
from pgvector.psycopg import register_vector

from bench.scale import bm25, layouts
from bench.scale.data import corpus_load, rows, tenant_sizes
from bench.scale.ingest import ingest_report
from core.embedded import ensure_started
from core.pg_sizing import sizing_describe, sizing_show

HALF_HNSW = "((embedding::halfvec(384)) halfvec_cosine_ops) WITH (m = 16, ef_construction = 64)"
EF_SEARCH = 100  # the product's RETRIEVAL_HNSW_EF_SEARCH
DATABASE = "parley_bench_scale"


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def _connect(admin_url: str) -> psycopg.Connection:
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {DATABASE}")
        admin.execute(f"CREATE DATABASE {DATABASE}")
    conn = psycopg.connect(admin_url.replace("/parley?", f"/{DATABASE}?", 1), autocommit=True)
    conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    register_vector(conn)
    return conn


def _load(conn: psycopg.Connection, corpus, sizes: dict[int, int]) -> float:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    conn.execute(
        "CREATE UNLOGGED TABLE staging (id bigint, workspace_id int, embedding vector(384), body text)"
    )
    with conn.cursor().copy(
        "COPY staging (id, workspace_id, embedding, body) FROM STDIN WITH (FORMAT BINARY)"
    ) as copy:
        copy.set_types(["int8", "int4", "vector", "text"])
        for row in rows(corpus, sizes=sizes):
            copy.write_row(row)
    return time.perf_counter() - started


def _never_exact(workspace: int) -> bool:
    return False


def _timed_ids(cursor, sql: str, params: dict) -> tuple[float, list[int]]:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    cursor.execute(sql, params)
    found = [r[0] for r in cursor.fetchall()]
    return (time.perf_counter() - started) * 1000, found


def _classes(sizes: dict[int, int]) -> dict[str, list[int]]:
    return {"big": [1], "mid": list(range(2, 11)), "small": list(range(11, 101))}


def _truth(
    conn: psycopg.Connection, corpus, classes, queries: int
) -> dict[tuple[int, int], list[int]]:  # type: ignore[no-untyped-def]
    cursor = conn.cursor()
    cursor.execute("SET enable_indexscan = off")
    truth = {}
    for workspaces in classes.values():
        for index in range(queries):
            workspace = workspaces[index % len(workspaces)]
            sql = layouts.exact_sql().format(workspace=workspace)
            _, found = _timed_ids(cursor, sql, {"q": corpus.query_vectors[index]})
            truth[(workspace, index)] = found
    cursor.execute("RESET enable_indexscan")
    return truth


def _statements(
    table: str,
    *,
    column: str,
    cast: str,
    walk: Callable[[int], int],
    product_text: bool,
    exact: Callable[[int], bool],
) -> dict[str, Callable[[int], str]]:
    """Each kind's statement for one workspace: the vector side (ordered at full precision where
    `exact` says the product scans the workspace exactly), the full text (the product's BM25 statement,
    or the plain baseline's ts_rank), and both fused."""

    def vector(workspace: int) -> str:
        order = "vector(384)" if exact(workspace) else cast
        return layouts.vector_sql(table, column=column, cast=order, walk=walk(workspace)).format(
            workspace=workspace
        )

    def text(workspace: int) -> str:
        if product_text:
            return bm25.text_sql(table, workspace=workspace)
        return layouts.text_sql(table).format(workspace=workspace)

    def hybrid(workspace: int) -> str:
        return layouts.hybrid_sql(vector(workspace), text(workspace))

    return {"vector": vector, "text": text, "hybrid": hybrid}


def _search(
    conn,
    corpus,
    table: str,
    classes,
    truth,
    queries: int,
    *,
    column="embedding",
    cast="vector(384)",
    walk=40,
    deepen: Callable[[int], int] | None = None,
    exact: Callable[[int], bool] = _never_exact,
    vector_only=False,
) -> dict:  # type: ignore[no-untyped-def]
    """`deepen`: the walk's depth by workspace (the product's rule, ef_search and rows re-scored);
    otherwise ef_search EF_SEARCH and `walk` rows. `exact`: the workspaces the product scans exactly,
    at full precision, whatever `cast`."""
    cursor = conn.cursor()
    cursor.execute("SET hnsw.iterative_scan = relaxed_order")

    def depth(workspace: int) -> int:
        return deepen(workspace) if deepen else walk

    # The isolated layouts run the product's full-text statement; the plain baseline ts_rank.
    kinds = _statements(
        table, column=column, cast=cast, walk=depth, product_text=table != "plain", exact=exact
    )
    if vector_only:
        kinds = {"vector": kinds["vector"]}
    figures = {}
    for name, workspaces in classes.items():
        for kind, statement in kinds.items():
            times, recalls = [], []
            for repeat in range(2):  # the first pass warms the cache; the second is measured
                for index in range(queries):
                    workspace = workspaces[index % len(workspaces)]
                    ef_search = deepen(workspace) if deepen else EF_SEARCH
                    cursor.execute(f"SET hnsw.ef_search = {int(ef_search)}")
                    params = {
                        "q": corpus.query_vectors[index],
                        "text": corpus.queries[index],
                        **bm25.params(corpus.queries[index]),
                    }
                    ms, found = _timed_ids(cursor, statement(workspace), params)
                    if repeat:
                        times.append(ms)
                        if kind == "vector":
                            gold = truth[(workspace, index)]
                            recalls.append(len(set(found[:10]) & set(gold)) / max(1, len(gold)))
            figures[(name, kind)] = (
                statistics.median(times),
                _percentile(times, 0.95),
                statistics.mean(recalls) if recalls else None,
            )
    return figures


def _print_search(label: str, figures: dict) -> None:  # type: ignore[type-arg]
    for (name, kind), (p50, p95, recall) in figures.items():
        recall_text = f"  recall@10 {recall:.3f}" if recall is not None else ""
        print(
            f"  {label:12} {name:5} {kind:6}  p50 {p50:7.1f} ms  p95 {p95:7.1f} ms{recall_text}",
            flush=True,
        )


def _halfvec(conn, corpus, truth, *, queries: int, vector_build: float) -> None:  # type: ignore[no-untyped-def]
    """The big tenant's own HNSW again over `embedding::halfvec(384)`: build, size, recall at ef_search."""
    started = time.perf_counter()
    conn.execute(f"CREATE INDEX part_w1_half ON part_w1 USING hnsw {HALF_HNSW}")
    half_build = time.perf_counter() - started
    half_size, full_size = conn.execute(
        "SELECT pg_relation_size('part_w1_half'), pg_relation_size('part_w1_embedding_idx')"
    ).fetchone()
    print(
        f"halfvec HNSW, big tenant: build {half_build:.0f} s, {half_size / 2**20:.0f} MB; vector HNSW: "
        f"build {vector_build:.0f} s, {full_size / 2**20:.0f} MB",
        flush=True,
    )
    _print_search(
        "halfvec",
        _search(
            conn,
            corpus,
            "part_w1",
            {"big": [1]},
            truth,
            queries,
            cast="halfvec(384)",
            vector_only=True,
        ),
    )


def _partial_halfvec(conn, corpus, classes, truth, *, sizes, queries: int) -> None:  # type: ignore[no-untyped-def]
    """The partial layout's half-precision graphs, as the product searches them: the walk reads
    ef_search rows, as deep as the product's rule sets it for the workspace's size, re-scored at full
    precision (`partial+half`; a workspace of at most RETRIEVAL_EXACT_SCAN_MAX_CHUNKS rows is scanned
    exactly at full precision, as the product's plan statement does); the walk at the fixed ef_search of
    100 (`half@100`) and cut at 40 rows (`half@40`), vector side only, which tell the depth and the
    re-scoring apart. Then the full-precision graphs go, so ingest is measured with the product's
    indexes."""
    cursor = conn.cursor()
    full = layouts.index_bytes(cursor, "partial", like="vector_cosine_ops")
    half = layouts.index_bytes(cursor, "partial", like="halfvec_cosine_ops")
    print(
        f"partial graphs: full precision {full / 2**20:.0f} MB, halfvec {half / 2**20:.0f} MB",
        flush=True,
    )
    from rag.retrieval.sql import walk_depth  # the package loads models: after django.setup()

    def product_depth(workspace: int) -> int:
        return walk_depth(scope_chunks=sizes[workspace], ef_search=EF_SEARCH)

    def product_exact(workspace: int) -> bool:
        return bool(sizes[workspace] <= settings.RETRIEVAL_EXACT_SCAN_MAX_CHUNKS)

    print(
        "partial+half walks as the product does (rag.retrieval.sql.walk_depth): ef_search "
        + ", ".join(
            f"{name} {product_depth(workspaces[0])}" for name, workspaces in classes.items()
        ),
        flush=True,
    )
    runs = (
        ("partial+half", EF_SEARCH, product_depth, product_exact, False),
        ("half@100", EF_SEARCH, None, _never_exact, True),
        ("half@40", 40, None, _never_exact, True),
    )
    for label, walk, deepen, exact, vector_only in runs:
        figures = _search(
            conn,
            corpus,
            "partial",
            classes,
            truth,
            queries,
            cast="halfvec(384)",
            walk=walk,
            deepen=deepen,
            exact=exact,
            vector_only=vector_only,
        )
        _print_search(label, figures)
    layouts.full_graphs_drop(cursor)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument(
        "--base-limit", type=int, default=0, help="base texts used (0: every piece of the corpus)"
    )
    parser.add_argument(
        "--threshold", type=int, default=5000, help="rows that earn a workspace its own index"
    )
    parser.add_argument(
        "--ingest", type=int, default=1000, help="rows per ingest cell (0: no ingest figures)"
    )
    parser.add_argument(
        "--layouts", default="part,partial", help="besides plain: part, partial, product, prior"
    )
    parser.add_argument(
        "--var-dir", type=Path, default=Path(os.environ.get("PARLEY_VAR_DIR", "var"))
    )
    args = parser.parse_args()

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()  # the product's BM25 settings (bench.scale.bm25)
    services = ensure_started(args.var_dir)
    try:
        conn = _connect(services.database_url)
        bm25.analysis_install(conn)
        print(f"server: {sizing_describe(sizing_show(cursor=conn.cursor()))}", flush=True)
        corpus = corpus_load(args.corpus, base_limit=args.base_limit, query_limit=args.queries)
        sizes = tenant_sizes(args.chunks)
        large = [w for w, n in sizes.items() if n >= args.threshold]
        print(
            f"{args.chunks} rows from {len(corpus.texts)} {corpus.name} texts; tenants: 1 x {sizes[1]}, "
            f"9 x {sizes[2]}, 90 x ~{sizes[11]}; own indexes for {len(large)} workspaces",
            flush=True,
        )
        print(f"load (COPY): {_load(conn, corpus, sizes):.0f} s", flush=True)
        builds = {"plain": layouts.plain_create(conn.cursor())}
        chosen = [
            name for name in layouts.LAYOUTS if name == "plain" or name in args.layouts.split(",")
        ]
        if "part" in chosen:
            builds["part"] = layouts.part_create(conn.cursor(), large=large)
        if "partial" in chosen:
            builds["partial"] = layouts.partial_create(conn.cursor(), large=large)
        if "product" in chosen:
            builds["product"] = layouts.product_create(conn.cursor(), large=large)
        if "prior" in chosen:
            builds["prior"] = layouts.prior_create(conn.cursor(), large=large)
        conn.execute("DROP TABLE staging")
        conn.execute("VACUUM ANALYZE")
        started = time.perf_counter()
        bm25.statistics_fill(conn, "plain")
        print(f"BM25's term statistics counted: {time.perf_counter() - started:.0f} s", flush=True)
        for name in chosen:
            size = layouts.disk_bytes(conn.cursor(), name)
            build = ", ".join(f"{k} {v:.0f} s" for k, v in builds[name].items())
            print(
                f"{name:8} build: {build}; disk {size / 2**20:.0f} MB "
                f"({size / args.chunks * 1e6 / 2**30:.2f} GB per million rows)",
                flush=True,
            )
        classes = _classes(sizes)
        truth = _truth(conn, corpus, classes, args.queries)
        print(
            f"search phase ({args.queries} questions per cell, ef_search {EF_SEARCH}, iterative scans):",
            flush=True,
        )
        # `product` and `prior` are measured for ingest: their searches are partial's (own graphs and GIN)
        for name in (name for name in chosen if name not in ("product", "prior")):
            _print_search(name, _search(conn, corpus, name, classes, truth, args.queries))
        if "partial" in chosen:
            _partial_halfvec(conn, corpus, classes, truth, sizes=sizes, queries=args.queries)
        if "part" in chosen:
            _halfvec(
                conn, corpus, truth, queries=args.queries, vector_build=builds["part"]["hnsw_big"]
            )
        if args.ingest > 0:  # --ingest 0: the search figures only
            ingest_report(conn, corpus, chunks=args.chunks, count=args.ingest, layouts_run=chosen)
        conn.close()
        with psycopg.connect(services.database_url, autocommit=True) as admin:
            admin.execute(
                f"DROP DATABASE IF EXISTS {DATABASE}"
            )  # several GB: not kept between runs
    finally:
        services.stop()


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
