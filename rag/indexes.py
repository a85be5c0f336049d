"""(Re)building the chunks' HNSW indexes with the measured build memory (RETRIEVAL_HNSW_BUILD_MEMORY_MB).

pgvector builds the graph in `maintenance_work_mem`; once the graph stops fitting, the build goes on
several times slower at 100k chunks with PostgreSQL's default 64 MB (bench/README.md). The memory is
raised with SET LOCAL, so it lasts only as long as the build's transaction.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import connection, transaction

from rag.models import INDEXED_DIMENSIONS, Chunk

if TYPE_CHECKING:
    from django.db.backends.utils import CursorWrapper


@dataclass(frozen=True)
class IndexBuild:
    name: str
    chunks: int
    seconds: float
    memory: str  # maintenance_work_mem during the build, as PostgreSQL shows it


def hnsw_index_name(*, dims: int) -> str:
    return f"chunk_embedding_half_{int(dims)}"


def hnsw_build_memory_set(*, cursor: CursorWrapper, memory_mb: int | None = None) -> None:
    """SET LOCAL maintenance_work_mem for the current transaction (the setting unless `memory_mb` is given)."""
    megabytes = int(memory_mb or settings.RETRIEVAL_HNSW_BUILD_MEMORY_MB)
    cursor.execute(f"SET LOCAL maintenance_work_mem = '{megabytes}MB'")


def chunk_indexes_rebuild(
    *, dims: Sequence[int] = INDEXED_DIMENSIONS, memory_mb: int | None = None
) -> list[IndexBuild]:
    """REINDEX each dimension's partial HNSW index, one transaction each (writes to chunks wait meanwhile)."""
    builds = []
    for size in dims:
        if size not in INDEXED_DIMENSIONS:
            raise ValueError(f"no HNSW index for {size} dimensions (indexed: {INDEXED_DIMENSIONS})")
        name = hnsw_index_name(dims=size)
        with transaction.atomic(), connection.cursor() as cursor:
            hnsw_build_memory_set(cursor=cursor, memory_mb=memory_mb)
            cursor.execute("SHOW maintenance_work_mem")
            memory = cursor.fetchone()[0]
            chunks = Chunk.objects.filter(embedding_dims=size, shared_indexed=True).count()
            started = time.perf_counter()
            cursor.execute(f'REINDEX INDEX "{name}"')
            builds.append(IndexBuild(name, chunks, time.perf_counter() - started, memory))
    return builds
