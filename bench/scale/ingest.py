"""Ingest throughput at 10k and at N existing rows, with BM25's term statistics kept as the product keeps
them: migration 0003's statement-level trigger function (`rag_chunk_stats`, installed by
bench.scale.bm25) on the table written to, with every workspace's statistics counted from that table's
rows first, so the trigger updates existing counts as in a live database. A batch is one INSERT of 200
rows from arrays, as ingestion writes one document's chunks (rag.ingestion.store), the tsvector
computed by the statement with the product's analysis.

Written into two tenants, since what a row costs depends on where it goes: a mid tenant (its own HNSW
and GIN once it passes the threshold) and a small one (no index of its own in the isolated layouts).
"""

from __future__ import annotations

import statistics
import time

from bench.scale import layouts
from bench.scale.bm25 import statistics_fill
from bench.scale.data import rows

BATCH = 200
TENANTS = {"mid": 2, "small": 11}
_INSERT = """INSERT INTO {table} (id, workspace_id, embedding, body, search_vector, search_length{shared})
SELECT r.id, r.workspace_id, r.embedding::vector(384), r.body, v, parley_tsvector_length(v){kept}
FROM unnest(%s::bigint[], %s::int[], %s::text[], %s::text[]) AS r(id, workspace_id, embedding, body),
     LATERAL parley_tsvector('english', r.body) AS v"""
# The product layout's rows say whether they are in the shared graph: a large workspace's new rows are not.
PRODUCT = "product"
PRIOR = "prior"  # the product's layout before migration 0019: every row in the shared graph too


def _rate(  # type: ignore[no-untyped-def]
    conn,
    corpus,
    table: str,
    *,
    workspace: int,
    count: int,
    first_id: int,
    apart: bool | None = None,
) -> float:
    """Rows/s of `count` rows written into `workspace` of `table`, the statistics trigger on. The rows
    are deleted again after (without the trigger: the statistics keep them, `count` rows of drift).
    `apart` (the product layout): whether they are kept out of the shared graph."""
    # Every cell starts with its GIN indexes' pending lists empty: a cell run after another on the same
    # table would otherwise pay the merge of the rows the one before it wrote (and deleted).
    conn.execute(
        "SELECT gin_clean_pending_list(indexrelid) FROM pg_index AS i JOIN pg_class AS c "
        "ON c.oid = i.indexrelid JOIN pg_am AS a ON a.oid = c.relam "
        "WHERE i.indrelid = %s::regclass AND a.amname = 'gin'",
        [table],
    )
    conn.execute(
        f"CREATE TRIGGER bench_stats_insert AFTER INSERT ON {table} REFERENCING NEW TABLE AS new_rows "
        "FOR EACH STATEMENT EXECUTE FUNCTION rag_chunk_stats()"
    )
    batch = list(rows(corpus, sizes={workspace: count}, start_id=first_id, seed=first_id))
    sql = _INSERT.format(
        table=table,
        shared="" if apart is None else ", shared_indexed",
        kept="" if apart is None else f", {'false' if apart else 'true'}",
    )
    started = time.perf_counter()
    for offset in range(0, count, BATCH):
        part = batch[offset : offset + BATCH]
        vectors = ["[" + ",".join(f"{x:.7g}" for x in vector) + "]" for _, _, vector, _ in part]
        with conn.transaction():
            conn.execute(
                sql,
                [
                    [i for i, _, _, _ in part],
                    [w for _, w, _, _ in part],
                    vectors,
                    [t for *_, t in part],
                ],
            )
    elapsed = time.perf_counter() - started
    conn.execute(f"DROP TRIGGER bench_stats_insert ON {table}")
    conn.execute(f"DELETE FROM {table} WHERE id >= {int(first_id)}")  # noqa: S608
    return count / elapsed


ROUNDS = 3  # each cell measured this many times, the cells interleaved; the median is printed


def ingest_report(conn, corpus, *, chunks: int, count: int, layouts_run: list[str]) -> None:  # type: ignore[no-untyped-def]
    """Rows/s into a mid and a small tenant at the full size, then at 10k existing rows (a 1-in-N/10k
    sample of the plain table, in the same layouts, with its own statistics); the ratio of the two. Each
    cell is the median of `ROUNDS` measurements, the cells of one size taken in turn each round, so a
    change in the machine's speed or a merge of a GIN pending list weighs on every cell alike."""
    conn.execute(
        "CREATE TABLE staging AS SELECT id, workspace_id, embedding, body FROM plain WHERE id % "  # noqa: S608
        f"{max(1, chunks // 10_000)} = 0"
    )
    layouts.plain_create(conn.cursor(), table="plain10k")
    targets = [("plain", "plain10k", "plain")]
    if "partial" in layouts_run:
        layouts.partial_create(conn.cursor(), large=[], source="plain10k", table="partial10k")
        targets.append(("partial", "partial10k", "partial"))
    for label in (PRODUCT, PRIOR):  # at 10k existing rows no workspace has graphs of its own
        if label in layouts_run:
            create = layouts.product_create if label == PRODUCT else layouts.prior_create
            create(conn.cursor(), large=[], source="plain10k", table=f"{label}10k")
            targets.append((label, f"{label}10k", label))
    conn.execute("DROP TABLE staging")
    conn.execute("VACUUM ANALYZE")
    first_id = chunks * 10
    cells = [(label, tenant) for label, _, _ in targets for tenant in TENANTS]
    tables = {label: (small, full) for label, small, full in targets}

    def medians(size: int) -> dict[tuple[str, str], float]:
        nonlocal first_id
        rates: dict[tuple[str, str], list[float]] = {cell: [] for cell in cells}
        for _ in range(ROUNDS):
            for label, tenant in cells:
                rates[(label, tenant)].append(
                    _rate(
                        conn,
                        corpus,
                        tables[label][size],
                        workspace=TENANTS[tenant],
                        count=count,
                        first_id=first_id,
                        # the product's rows go apart in a workspace with its own graph (at full size)
                        apart=(size == 1 and tenant == "mid") if label == PRODUCT else None,
                    )
                )
                first_id += count
        return {cell: statistics.median(values) for cell, values in rates.items()}

    statistics_fill(conn, "plain")
    at_full = medians(1)
    statistics_fill(conn, "plain10k")
    at_10k = medians(0)
    print(
        f"ingest (rows/s, median of {ROUNDS} interleaved rounds; {count} rows per cell in INSERTs of {BATCH}, "
        "the tsvector computed, every index maintained, BM25's term-statistics trigger on):",
        flush=True,
    )
    print(
        f"  {'layout':8} {'tenant':6} {'10k existing':>13} {f'{chunks} existing':>17} {'ratio':>6}"
    )
    for cell in cells:
        label, tenant = cell
        print(
            f"  {label:8} {tenant:6} {at_10k[cell]:13.0f} {at_full[cell]:17.0f} "
            f"{at_full[cell] / at_10k[cell]:6.2f}",
            flush=True,
        )
