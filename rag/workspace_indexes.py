"""Per-workspace partial HNSW indexes: a large workspace searches graphs of its own chunks only.

In one shared graph, a workspace's search filters its way through everyone's neighbourhoods: at 100k
chunks the big tenant's recall@10 fell to 0.62 against 0.84 with its own graph, and a 5k-chunk tenant
took 44 ms against 4-8 ms (docs/decisions/tenant-isolation.md). Both vector columns get one: the
workspace model's (`embedding::vector(N)`, predicate `workspace_id = ... AND embedding_dims = N`) and the
multilingual model's (`embedding_multi`, predicate `workspace_id = ... AND embedding_multi IS NOT NULL`;
without it a 10k-chunk workspace beside a 100k one took 63-137 ms on that side alone, against 4-13 ms
on its own graph). Each predicate repeats the retrieval statement's, so the planner picks the index by
itself. Built and dropped CONCURRENTLY: writes to chunks never wait for it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Count

from rag.embeddings import MULTI_MODEL_DIMS
from rag.models import INDEXED_DIMENSIONS, Chunk

_PREFIX = "chunk_ws_"
# Exactly the names `workspace_index_name` makes. A LIKE on the prefix also matched the migrations' own
# btree indexes `chunk_ws_model` and `chunk_ws_multi_model` (and `_` is LIKE's one-character wildcard),
# so every sync dropped them (restored by migration 0012).
_NAME_PATTERN = f"^{_PREFIX}[0-9a-f]{{32}}_(hnsw|multi)_[0-9]+$"
_LOCK_KEY = 27_0001  # pg advisory lock: one sync at a time (beat runs may overlap a long build)


@dataclass
class WorkspaceIndexSync:
    created: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)


def workspace_index_name(*, workspace_id: uuid.UUID | str, dims: int, multi: bool = False) -> str:
    """`chunk_ws_<uuid hex>_hnsw_<dims>` (the workspace model's column) or `..._multi_<dims>` (the
    multilingual one): 50-51 characters, under PostgreSQL's 63."""
    kind = "multi" if multi else "hnsw"
    return f"{_PREFIX}{uuid.UUID(str(workspace_id)).hex}_{kind}_{int(dims)}"


@dataclass(frozen=True)
class _Wanted:
    workspace_id: uuid.UUID
    dims: int
    multi: bool
    chunks: int

    def create_sql(self, name: str) -> str:
        # workspace_id is a UUID and dims an int: never text from outside
        if self.multi:
            column = "embedding_multi"
            predicate = "embedding_multi IS NOT NULL"
        else:
            column = f"(embedding::vector({int(self.dims)}))"
            predicate = f"embedding_dims = {int(self.dims)}"
        return (
            f'CREATE INDEX CONCURRENTLY IF NOT EXISTS "{name}" ON rag_chunk USING hnsw '
            f"({column} vector_cosine_ops) WITH (m = 16, ef_construction = 64) "
            f"WHERE workspace_id = '{self.workspace_id}'::uuid AND {predicate}"
        )


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
    """Give every (workspace, dimension) of at least `min_chunks` chunks (the setting
    RETRIEVAL_WORKSPACE_INDEX_MIN_CHUNKS unless given) its own index; drop those whose workspace fell
    below half of it (the margin keeps a workspace near the line from rebuilding at every run)."""
    threshold = int(min_chunks or settings.RETRIEVAL_WORKSPACE_INDEX_MIN_CHUNKS)
    wanted = [
        _Wanted(uuid.UUID(str(row["workspace_id"])), row["embedding_dims"], False, row["n"])
        for row in Chunk.objects.filter(embedding_dims__in=INDEXED_DIMENSIONS)
        .values("workspace_id", "embedding_dims")
        .annotate(n=Count("id"))
    ] + [
        _Wanted(uuid.UUID(str(row["workspace_id"])), MULTI_MODEL_DIMS, True, row["n"])
        for row in Chunk.objects.filter(embedding_multi__isnull=False)
        .values("workspace_id")
        .annotate(n=Count("id"))
    ]
    counts = {
        workspace_index_name(workspace_id=item.workspace_id, dims=item.dims, multi=item.multi): item
        for item in wanted
    }
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


def _sync(
    cursor: Any,
    *,
    counts: dict[str, _Wanted],
    threshold: int,
    result: WorkspaceIndexSync,
) -> None:
    existing = _existing()
    for name, valid in existing.items():
        kept = name in counts and counts[name].chunks >= threshold // 2
        if not valid or not kept:
            cursor.execute(f'DROP INDEX CONCURRENTLY IF EXISTS "{name}"')
            result.dropped.append(name)
    cursor.execute(f"SET maintenance_work_mem = '{int(settings.RETRIEVAL_HNSW_BUILD_MEMORY_MB)}MB'")
    try:
        for name, item in sorted(counts.items()):
            if item.chunks < threshold or (existing.get(name) and name not in result.dropped):
                continue
            cursor.execute(item.create_sql(name))
            result.created.append(name)
    finally:
        cursor.execute("RESET maintenance_work_mem")
