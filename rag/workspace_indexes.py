"""Per-workspace partial indexes: a large workspace searches graphs and postings of its own chunks only.

In one shared graph, a workspace's search filters its way through everyone's neighbourhoods: the big
tenant's recall falls and a mid-sized one is searched slower than with graphs of their own
(docs/decisions/tenant-isolation.md). A workspace of at least
RETRIEVAL_WORKSPACE_INDEX_MIN_CHUNKS chunks gets:
- an HNSW graph of the workspace model's column (`embedding::halfvec(N)`, predicate `workspace_id = ...
  AND embedding_dims = N`);
- one of the multilingual column (`embedding_multi::halfvec(512)`, predicate `workspace_id = ... AND
  embedding_multi IS NOT NULL`; without it a workspace beside a much larger one walked the shared
  graph on that side too);
- a GIN index of its full-text vectors (`search_vector`, predicate `workspace_id = ...`), so the BM25
  statement's postings are the workspace's alone.
Each expression and predicate repeats the retrieval statements' (rag.retrieval.sql, rag.retrieval.bm25),
so the planner picks the index by itself. Graphs hold half-precision vectors, as the shared ones
(migration 0015). Built and dropped CONCURRENTLY: writes to chunks never wait for it. A new index is
built before an index it replaces is dropped, so a workspace is never left without one.

Once a workspace's own graphs are built, the documents ingested into it keep their chunks out of the shared
graphs (`Document.chunks_apart`, `Chunk.shared_indexed`: `own_graphs_ready` decides at ingestion): a new
chunk then pays an insert into its workspace's graphs only, not into graphs of the whole table. Chunks
written before stay in both. Before a workspace's own graphs are dropped, its documents return to the shared
graphs (`_apart_return`), and each sync returns those of any workspace left without its own graphs (a
document ingested while they were being dropped). Searches are right in every state: their walks over
chunks kept apart and over shared chunks are separate branches (rag.retrieval.sql).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Count

from rag.models import INDEXED_DIMENSIONS, Chunk
from textmodels.embeddings import MULTI_MODEL_DIMS

_PREFIX = "chunk_ws_"
# Exactly the names `workspace_index_name` makes, and those of earlier releases (`hnsw`, `multi`: full-
# precision graphs, dropped once their halfvec successor is built). A LIKE on the prefix also matched the
# migrations' own btree indexes `chunk_ws_model` and `chunk_ws_multi_model` (and `_` is LIKE's
# one-character wildcard), so every sync dropped them (restored by migration 0012).
_NAME_PATTERN = f"^{_PREFIX}[0-9a-f]{{32}}_((hnsw|multi|half|mhalf)_[0-9]+|text)$"
# the workspace model's graph, the multilingual graph, the full text
KINDS = ("half", "mhalf", "text")
_LOCK_KEY = 27_0001  # pg advisory lock: one sync at a time (beat runs may overlap a long build)


@dataclass
class WorkspaceIndexSync:
    created: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)


def workspace_index_name(*, workspace_id: uuid.UUID | str, kind: str, dims: int = 0) -> str:
    """`chunk_ws_<uuid hex>_half_<dims>` (the workspace model's graph), `..._mhalf_<dims>` (the
    multilingual one) or `..._text` (its full text): at most 51 characters, under PostgreSQL's 63."""
    if kind not in KINDS:
        raise ValueError(f"no per-workspace index of kind {kind!r} (kinds: {KINDS})")
    suffix = "text" if kind == "text" else f"{kind}_{int(dims)}"
    return f"{_PREFIX}{uuid.UUID(str(workspace_id)).hex}_{suffix}"


@dataclass(frozen=True)
class _Wanted:
    workspace_id: uuid.UUID
    kind: str
    dims: int
    chunks: int

    def name(self) -> str:
        return workspace_index_name(workspace_id=self.workspace_id, kind=self.kind, dims=self.dims)

    def create_sql(self) -> str:
        # workspace_id is a UUID and dims an int: never text from outside
        dims = int(self.dims)
        method, column, predicate = {
            "half": (
                "hnsw",
                f"(embedding::halfvec({dims})) halfvec_cosine_ops",
                f"embedding_dims = {dims}",
            ),
            "mhalf": (
                "hnsw",
                f"(embedding_multi::halfvec({dims})) halfvec_cosine_ops",
                "embedding_multi IS NOT NULL",
            ),
            "text": ("gin", "search_vector", ""),
        }[self.kind]
        options = " WITH (m = 16, ef_construction = 64)" if method == "hnsw" else ""
        return (
            f'CREATE INDEX CONCURRENTLY IF NOT EXISTS "{self.name()}" ON rag_chunk USING {method} '
            f"({column}){options} WHERE workspace_id = '{self.workspace_id}'::uuid"
            + (f" AND {predicate}" if predicate else "")
        )


def own_graphs_ready(*, workspace_id: uuid.UUID | str, dims: int, multilingual: bool) -> bool:
    """Whether the workspace's own graph of `dims` (and its multilingual one, when its chunks get
    multilingual vectors) are built and valid, so a document ingested now can keep its chunks apart."""
    names = [workspace_index_name(workspace_id=workspace_id, kind="half", dims=dims)]
    if multilingual:
        names.append(
            workspace_index_name(workspace_id=workspace_id, kind="mhalf", dims=MULTI_MODEL_DIMS)
        )
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT count(*) FROM pg_index AS i JOIN pg_class AS c ON c.oid = i.indexrelid
            WHERE c.relname = ANY(%s) AND i.indisvalid""",
            [names],
        )
        return int(cursor.fetchone()[0]) == len(names)


# Documents kept apart return to the shared graphs: their chunks first written into them (each chunk's new
# row version goes into the shared graphs), then the documents' flag, in one statement.
_APART_RETURN = """
WITH returned AS (
    UPDATE rag_document SET chunks_apart = false
    WHERE workspace_id = ANY(%(workspaces)s::uuid[]) AND chunks_apart RETURNING id
)
UPDATE rag_chunk SET shared_indexed = true
WHERE document_id IN (SELECT id FROM returned) AND NOT shared_indexed
"""


def _apart_return(cursor: Any, workspaces: set[uuid.UUID]) -> None:
    if workspaces:
        cursor.execute(_APART_RETURN, {"workspaces": [str(w) for w in sorted(workspaces)]})


def _workspace_of(name: str) -> uuid.UUID:
    return uuid.UUID(name[len(_PREFIX) : len(_PREFIX) + 32])


def _existing() -> dict[str, bool]:
    """Every per-workspace index on rag_chunk and whether it is valid (a failed concurrent build
    leaves an invalid one behind)."""
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT c.relname, i.indisvalid FROM pg_index AS i JOIN pg_class AS c ON c.oid = i.indexrelid
            WHERE i.indrelid = 'rag_chunk'::regclass AND c.relname ~ %s""",
            [_NAME_PATTERN],
        )
        return {name: bool(valid) for name, valid in cursor.fetchall()}


def workspace_indexes_sync(*, min_chunks: int | None = None) -> WorkspaceIndexSync:
    """Give every workspace of at least `min_chunks` chunks (the setting RETRIEVAL_WORKSPACE_INDEX_MIN_CHUNKS
    unless given; per dimension for its graphs) its own indexes; drop those whose workspace fell below half
    of it (the margin keeps a workspace near the line from rebuilding at every run), and those of an earlier
    kind once their successor is built."""
    threshold = int(min_chunks or settings.RETRIEVAL_WORKSPACE_INDEX_MIN_CHUNKS)
    wanted = (
        [
            _Wanted(uuid.UUID(str(row["workspace_id"])), "half", row["embedding_dims"], row["n"])
            for row in Chunk.objects.filter(embedding_dims__in=INDEXED_DIMENSIONS)
            .values("workspace_id", "embedding_dims")
            .annotate(n=Count("id"))
        ]
        + [
            _Wanted(uuid.UUID(str(row["workspace_id"])), "mhalf", MULTI_MODEL_DIMS, row["n"])
            for row in Chunk.objects.filter(embedding_multi__isnull=False)
            .values("workspace_id")
            .annotate(n=Count("id"))
        ]
        + [
            _Wanted(uuid.UUID(str(row["workspace_id"])), "text", 0, row["n"])
            for row in Chunk.objects.values("workspace_id").annotate(n=Count("id"))
        ]
    )
    counts = {item.name(): item for item in wanted}
    result = WorkspaceIndexSync()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [_LOCK_KEY])
        if not cursor.fetchone()[0]:
            return result  # another sync is building; the next run sees its work
        try:
            _sync(cursor, counts=counts, threshold=threshold, result=result)
        finally:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [_LOCK_KEY])
    return result


def _drop(cursor: Any, name: str, result: WorkspaceIndexSync) -> None:
    cursor.execute(f'DROP INDEX CONCURRENTLY IF EXISTS "{name}"')
    result.dropped.append(name)


def _sync(
    cursor: Any,
    *,
    counts: dict[str, _Wanted],
    threshold: int,
    result: WorkspaceIndexSync,
) -> None:
    existing = _existing()
    for name, valid in existing.items():
        if (
            not valid
        ):  # a failed concurrent build: it serves nothing, and IF NOT EXISTS would keep it
            _drop(cursor, name, result)
    cursor.execute(f"SET maintenance_work_mem = '{int(settings.RETRIEVAL_HNSW_BUILD_MEMORY_MB)}MB'")
    try:
        for name, item in sorted(counts.items()):
            if item.chunks < threshold or existing.get(name):
                continue
            cursor.execute(item.create_sql())
            result.created.append(name)
    finally:
        cursor.execute("RESET maintenance_work_mem")
    dropping = [
        name
        for name, valid in existing.items()
        # below half the size, or an earlier kind (its successor built above)
        if valid and not (name in counts and counts[name].chunks >= threshold // 2)
    ]
    # A workspace losing its own graph of its model: its documents kept apart go back to the shared graphs
    # first, so no chunk is left in neither.
    _apart_return(cursor, {_workspace_of(name) for name in dropping if "_half_" in name})
    for name in dropping:
        _drop(cursor, name, result)
    cursor.execute("SELECT DISTINCT workspace_id FROM rag_document WHERE chunks_apart")
    apart = {uuid.UUID(str(workspace_id)) for (workspace_id,) in cursor.fetchall()}
    graphs = _existing()
    _apart_return(
        cursor,
        {
            workspace
            for workspace in apart
            if not any(
                valid and name.startswith(f"{_PREFIX}{workspace.hex}_half_")
                for name, valid in graphs.items()
            )
        },
    )
