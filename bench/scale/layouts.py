"""The table layouts compared, as SQL: the plain baseline and the two tenant-isolated candidates.

- `plain`: one table, one HNSW graph and one GIN index over every workspace (pgvector's iterative
  scans find a workspace's neighbours among everyone's): the product's layout today.
- `part`: LIST-partitioned by workspace; a workspace of `threshold` rows or more has its own partition
  with its own HNSW and GIN; the small ones share a DEFAULT partition with only a btree on the
  workspace, so their searches are exact scans of their own rows.
- `partial`: one table; a partial HNSW and a partial GIN per large workspace (`WHERE workspace_id = N`),
  the small ones exact through the btree, as in `part`. Each large workspace gets two graphs, searched
  apart: full precision (`embedding`) and half precision (`embedding::halfvec(384)`, the product's,
  rag.workspace_indexes); `full_graphs_drop` removes the first before ingest is measured.
- `product`: the product's own layout (rag migrations 0015-0019, rag.workspace_indexes): one table; a
  shared half-precision graph over the chunks not kept apart (`WHERE shared_indexed`) and a shared GIN
  over every row; a large workspace has its own half-precision graph and GIN, and its rows are kept apart
  (as the documents ingested once its graphs exist are). Measured for ingest: a mid tenant's new rows pay
  the shared graph at 10k existing rows (no workspace is large then) and only its own graph at N.
- `prior`: the product's layout before migration 0019, for ingest: the same, with every row in the
  shared graph as well, so a large workspace's new rows pay both graphs.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

HNSW = "USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)"
HALF_HNSW = (
    "USING hnsw ((embedding::halfvec(384)) halfvec_cosine_ops) WITH (m = 16, ef_construction = 64)"
)
COLUMNS = (
    "id bigint NOT NULL, workspace_id int NOT NULL, embedding vector(384) NOT NULL, body text NOT NULL, "
    "search_vector tsvector NOT NULL, search_config text NOT NULL DEFAULT 'english', "
    "search_length int NOT NULL, "
    # What the product's full-text statement also filters on (bench.scale.bm25): one pseudo-document,
    # one model, nothing quarantined.
    "document_id int NOT NULL DEFAULT 0, embedding_model text NOT NULL DEFAULT 'bench', "
    "quarantined boolean NOT NULL DEFAULT false"
)
LAYOUTS = ("plain", "part", "partial", "product", "prior")
# The isolated layouts store the tsvector as the product does (rag migration 0017): in the row, so the BM25
# statement reads it without a TOAST look-up; the plain baseline keeps PostgreSQL's default.
INLINE_TSVECTOR = "ALTER TABLE {table} ALTER COLUMN search_vector SET STORAGE MAIN"


def timed(cursor, sql: str, builds: dict[str, float], label: str) -> None:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    cursor.execute(sql)
    builds[label] = builds.get(label, 0.0) + time.perf_counter() - started


def plain_create(cursor, *, table: str = "plain") -> dict[str, float]:  # type: ignore[no-untyped-def]
    """The baseline's table from the staging rows; returns index build seconds by kind."""
    builds: dict[str, float] = {}
    cursor.execute(f"CREATE TABLE {table} ({COLUMNS}, PRIMARY KEY (id))")
    cursor.execute(
        f"INSERT INTO {table} (id, workspace_id, embedding, body, search_vector, search_length) "  # noqa: S608
        "SELECT id, workspace_id, embedding, body, v, parley_tsvector_length(v) FROM staging, "
        "LATERAL parley_tsvector('english', body) AS v"
    )
    cursor.execute(f"CREATE INDEX ON {table} (workspace_id)")
    timed(cursor, f"CREATE INDEX {table}_hnsw ON {table} {HNSW}", builds, "hnsw")
    timed(cursor, f"CREATE INDEX {table}_gin ON {table} USING gin (search_vector)", builds, "gin")
    return builds


def part_create(cursor, *, large: Iterable[int], source: str = "plain") -> dict[str, float]:  # type: ignore[no-untyped-def]
    builds: dict[str, float] = {}
    cursor.execute(
        f"CREATE TABLE part ({COLUMNS}, PRIMARY KEY (workspace_id, id)) PARTITION BY LIST (workspace_id)"
    )
    for workspace in large:
        cursor.execute(
            f"CREATE TABLE part_w{workspace} PARTITION OF part FOR VALUES IN ({int(workspace)})"
        )
    cursor.execute("CREATE TABLE part_shared PARTITION OF part DEFAULT")
    cursor.execute(INLINE_TSVECTOR.format(table="part"))
    cursor.execute(f"INSERT INTO part SELECT * FROM {source}")  # noqa: S608
    for workspace in large:
        label = "hnsw_big" if workspace == 1 else "hnsw"
        timed(cursor, f"CREATE INDEX ON part_w{workspace} {HNSW}", builds, label)
        timed(cursor, f"CREATE INDEX ON part_w{workspace} USING gin (search_vector)", builds, "gin")
    return builds


def _own_indexes(cursor, table: str, workspace: int, builds: dict[str, float]) -> None:  # type: ignore[no-untyped-def]
    """A large workspace's own half-precision graph and GIN, as rag.workspace_indexes builds them."""
    where = f"WHERE workspace_id = {int(workspace)}"
    timed(cursor, f"CREATE INDEX ON {table} {HALF_HNSW} {where}", builds, "hnsw_half")
    timed(cursor, f"CREATE INDEX ON {table} USING gin (search_vector) {where}", builds, "gin")


def partial_create(
    cursor, *, large: Iterable[int], source: str = "plain", table: str = "partial"
) -> dict[str, float]:  # type: ignore[no-untyped-def]
    builds: dict[str, float] = {}
    cursor.execute(f"CREATE TABLE {table} ({COLUMNS}, PRIMARY KEY (id))")
    cursor.execute(INLINE_TSVECTOR.format(table=table))
    cursor.execute(f"INSERT INTO {table} SELECT * FROM {source}")  # noqa: S608
    cursor.execute(f"CREATE INDEX ON {table} (workspace_id)")
    for workspace in large:
        timed(
            cursor,
            f"CREATE INDEX {table}_full_{int(workspace)} ON {table} {HNSW} "
            f"WHERE workspace_id = {int(workspace)}",
            builds,
            "hnsw",
        )
        _own_indexes(cursor, table, workspace, builds)
    return builds


def product_create(
    cursor,
    *,
    large: Iterable[int],
    source: str = "plain",
    table: str = "product",
    keep_apart: bool = True,
) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """The product's layout; without `keep_apart`, the large workspaces' rows stay in the shared graph
    too (the `prior` layout)."""
    builds: dict[str, float] = {}
    large = sorted(int(workspace) for workspace in large)
    apart = (large if keep_apart else []) or [0]
    cursor.execute(
        f"CREATE TABLE {table} ({COLUMNS}, shared_indexed boolean NOT NULL DEFAULT true, PRIMARY KEY (id))"
    )
    cursor.execute(INLINE_TSVECTOR.format(table=table))
    cursor.execute(
        f"INSERT INTO {table} SELECT *, workspace_id <> ALL(%s) FROM {source}",  # noqa: S608
        [apart],
    )
    cursor.execute(f"CREATE INDEX ON {table} (workspace_id)")
    timed(
        cursor, f"CREATE INDEX ON {table} {HALF_HNSW} WHERE shared_indexed", builds, "hnsw_shared"
    )
    timed(cursor, f"CREATE INDEX ON {table} USING gin (search_vector)", builds, "gin_shared")
    for workspace in large:
        _own_indexes(cursor, table, workspace, builds)
    return builds


def prior_create(
    cursor, *, large: Iterable[int], source: str = "plain", table: str = "prior"
) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """The product's layout before migration 0019: no row kept apart."""
    return product_create(cursor, large=large, source=source, table=table, keep_apart=False)


def index_bytes(cursor, table: str, *, like: str) -> int:  # type: ignore[no-untyped-def]
    """The size of the table's indexes whose definition contains `like`."""
    cursor.execute(
        "SELECT coalesce(sum(pg_relation_size(indexname::regclass)), 0) FROM pg_indexes "
        "WHERE tablename = %s AND indexdef LIKE %s",
        [table, f"%{like}%"],
    )
    return int(cursor.fetchone()[0])


def full_graphs_drop(cursor, *, table: str = "partial") -> None:  # type: ignore[no-untyped-def]
    """The full-precision graphs `partial_create` built for comparison: the product keeps only halfvec."""
    cursor.execute(
        "SELECT indexname FROM pg_indexes WHERE tablename = %s AND indexname LIKE %s",
        [table, f"{table}_full_%"],
    )
    for (name,) in cursor.fetchall():
        cursor.execute(f'DROP INDEX "{name}"')


def vector_sql(
    table: str, *, column: str = "embedding", cast: str = "vector(384)", walk: int = 40
) -> str:
    """Top-40 by cosine distance (the product's vector candidates): the index walk orders by the cast
    expression (the graph's) for `walk` rows, which are re-scored at full precision and re-sorted, as
    rag.retrieval.sql does (relaxed_order iterative scans may also return neighbours slightly out of
    order). The workspace is a literal so the planner can match a partial index or prune partitions, as
    a client-side-bound Django query does."""
    return f"""WITH hits AS MATERIALIZED (
        SELECT id, {column} <=> %(q)s::vector(384) AS distance FROM {table}
        WHERE workspace_id = {{workspace}} ORDER BY {column}::{cast} <=> %(q)s::{cast} LIMIT {int(walk)})
    SELECT id FROM hits ORDER BY distance, id LIMIT 40"""  # noqa: S608


# PostgreSQL's own English query (its stop words dropped), OR-ed: plain full text as a team without
# Parley's BM25 would write it. The rows hold the product's analysis, whose lexemes are the same
# Snowball stems (it keeps the stop words; a query OR-ing "the" would read every row).
_QUERY = "(SELECT replace(plainto_tsquery('english', %(text)s)::text, '&', '|')::tsquery AS q)"


def text_sql(table: str) -> str:
    """The plain baseline's full text: top-40 by ts_rank over an OR of the question's English
    lexemes (every word but PostgreSQL's stop words counts, as in BM25)."""
    return f"""SELECT c.id FROM {table} AS c, {_QUERY} AS query
    WHERE c.workspace_id = {{workspace}} AND c.search_vector @@ query.q
    ORDER BY ts_rank(c.search_vector, query.q) DESC, c.id LIMIT 40"""  # noqa: S608


def hybrid_sql(vector: str, text: str) -> str:
    """Both sides (statements for one workspace, each ids best first) in one statement, fused by
    reciprocal rank (k = 60), top 10."""
    return f"""WITH v AS MATERIALIZED (SELECT id, row_number() OVER () AS r FROM ({vector}) AS s0),
    t AS MATERIALIZED (SELECT id, row_number() OVER () AS r FROM ({text}) AS s1)
    SELECT id FROM (SELECT id, 1.0 / (60 + r) AS s FROM v UNION ALL SELECT id, 1.0 / (60 + r) FROM t) AS u
    GROUP BY id ORDER BY sum(s) DESC, id LIMIT 10"""  # noqa: S608


def exact_sql() -> str:
    """The ground truth: every row of the workspace, sorted (run with index scans off)."""
    return """SELECT id FROM plain WHERE workspace_id = {workspace}
    ORDER BY embedding <=> %(q)s::vector(384), id LIMIT 10"""


def disk_bytes(cursor, table: str) -> int:  # type: ignore[no-untyped-def]
    cursor.execute(
        """SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class AS c
        WHERE c.relkind IN ('r', 'p') AND (c.relname = %s OR c.oid IN (
            SELECT inhrelid FROM pg_inherits WHERE inhparent = %s::regclass))""",
        [table, table],
    )
    return int(cursor.fetchone()[0])
