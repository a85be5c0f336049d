"""Loading benchmark chunks into Parley's own tables (rag_document, rag_chunk), so every measurement runs the
product's retrieval (`rag.retrieval.chunks_retrieve`) on the product's indexes.

One workspace per data set (`bench-<name>`) with one bot and one ready document per corpus document
(its title is the corpus id, which recall counts by). Chunks are written with COPY; their tsvector is
computed as ingestion computes it (heading path weight A, text weight B, `parley_tsvector` in the chunk's
language configuration), and so are BM25's term statistics (the rag_chunk triggers count the rows in).
A large load drops the HNSW index first and rebuilds it after, with the product's
build memory (`rag.indexes`), instead of inserting row by row into the graph.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence

import numpy as np
from django.db import connection, transaction

from bots.models import Bot
from core.models import Workspace
from rag.indexes import hnsw_build_memory_set, hnsw_index_name
from rag.language import search_config_for
from rag.models import Chunk, Document
from textmodels.embeddings import LOCAL_MODEL_ID, MULTI_MODEL_ID

# (corpus document id, ISO 639-1 language, chunk text)
Row = tuple[str, str, str]
BULK_ROWS = 20_000
MULTI_INDEX = "chunk_embedding_multi_half"  # above this, drop the HNSW index during the load and rebuild it after
COLUMNS = (
    "id",
    "document_id",
    "workspace_id",
    "ordinal",
    "text",
    "heading_path",
    "bbox",
    "metadata",
    "token_count",
    "embedding",
    "embedding_dims",
    "embedding_model",
    "search_config",
    "embedding_multi",
    "embedding_multi_model",
)


def workspace_load(
    slug: str, rows: Sequence[Row], vectors: np.ndarray, multi_vectors: np.ndarray | None = None
) -> tuple[Workspace, Bot]:
    """The data set's workspace and bot; reloaded only when its rows or vectors changed (a digest kept
    in the workspace's name). Each chunk gets both vectors, as ingestion stores them (no multilingual
    vector when `multi_vectors` is None: a chunk the backfill has not reached yet)."""
    digest = hashlib.sha256(
        "\x1e".join(text for _, _, text in rows).encode()
        + vectors.tobytes()
        + (multi_vectors.tobytes() if multi_vectors is not None else b"")
    ).hexdigest()
    marker = f"{slug} ({len(rows)} chunks, {digest[:12]})"
    workspace, _ = Workspace.objects.get_or_create(slug=slug, defaults={"name": marker})
    bot, _ = Bot.objects.get_or_create(workspace=workspace, name="Bench bot")
    if workspace.name == marker and Chunk.objects.filter(workspace=workspace).count() == len(rows):
        _chunk_counts_set(workspace)  # workspaces loaded before the counts were kept
        return workspace, bot
    Document.objects.filter(workspace=workspace).delete()
    documents = _documents_create(workspace, bot, rows)
    chunk_ids = [uuid.uuid4() for _ in rows]
    indexes = [hnsw_index_name(dims=vectors.shape[1]), MULTI_INDEX]
    bulk = len(rows) > BULK_ROWS
    with transaction.atomic(), connection.cursor() as cursor:
        definitions = []
        for index in indexes:
            cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = %s", [index])
            definitions.append(cursor.fetchone()[0])
            if bulk:
                cursor.execute(f'DROP INDEX "{index}"')
        _copy(cursor, workspace, rows, vectors, multi_vectors, documents, chunk_ids)
        cursor.execute(
            "UPDATE rag_chunk SET search_vector = v, search_length = parley_tsvector_length(v)"
            " FROM (SELECT id AS chunk_id,"
            " setweight(parley_tsvector(search_config, heading_path::text), 'A')"
            " || setweight(parley_tsvector(search_config, text), 'B') AS v"
            " FROM rag_chunk WHERE workspace_id = %s) AS analysed"
            " WHERE id = chunk_id",
            [workspace.pk],
        )
        if bulk:
            # The COPY left deferred foreign-key checks pending, and PostgreSQL builds no index then.
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            hnsw_build_memory_set(cursor=cursor)
            for definition in definitions:
                cursor.execute(definition)
    _chunk_counts_set(workspace)
    Workspace.objects.filter(pk=workspace.pk).update(name=marker)
    with (
        connection.cursor() as cursor
    ):  # the tsvector UPDATE left a dead copy of every row: as autovacuum would
        cursor.execute("VACUUM ANALYZE rag_chunk")
        cursor.execute("ANALYZE rag_document")
    return workspace, bot


def _chunk_counts_set(workspace: Workspace) -> None:
    """Each document's chunk_count, as ingestion keeps it (retrieval sizes its scope by it)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE rag_document AS d SET chunk_count = c.n"
            " FROM (SELECT document_id, count(*) AS n FROM rag_chunk WHERE workspace_id = %s GROUP BY 1) AS c"
            " WHERE d.id = c.document_id AND d.chunk_count <> c.n",
            [workspace.pk],
        )


def _documents_create(workspace: Workspace, bot: Bot, rows: Sequence[Row]) -> dict[str, Document]:
    documents: dict[str, Document] = {}
    for doc_id, lang, _ in rows:
        if doc_id not in documents:
            documents[doc_id] = Document(
                workspace=workspace,
                title=doc_id,
                filename=f"{doc_id}.txt",
                status=Document.Status.READY,
                language=lang,
                embedding_model=LOCAL_MODEL_ID,
            )
    Document.objects.bulk_create(documents.values(), batch_size=2000)
    links = [
        Document.bots.through(document_id=document.pk, bot_id=bot.pk)
        for document in documents.values()
    ]
    Document.bots.through.objects.bulk_create(links, batch_size=5000)
    return documents


def _copy(cursor, workspace, rows, vectors, multi_vectors, documents, chunk_ids) -> None:  # type: ignore[no-untyped-def]
    ordinals: dict[str, int] = {}
    sql = f"COPY rag_chunk ({', '.join(COLUMNS)}) FROM STDIN"
    with cursor.cursor.copy(sql) as copy:
        multis = multi_vectors if multi_vectors is not None else [None] * len(rows)
        for (doc_id, lang, text), vector, multi, pk in zip(
            rows, vectors, multis, chunk_ids, strict=True
        ):
            ordinals[doc_id] = ordinals.get(doc_id, -1) + 1
            embedding = "[" + ",".join(f"{x:.7g}" for x in vector) + "]"
            copy.write_row(
                (
                    pk,
                    documents[doc_id].pk,
                    workspace.pk,
                    ordinals[doc_id],
                    text,
                    "[]",
                    "[]",
                    '{"modality": "text"}',
                    0,
                    embedding,
                    len(vector),
                    LOCAL_MODEL_ID,
                    search_config_for(lang),
                    None if multi is None else "[" + ",".join(f"{x:.7g}" for x in multi) + "]",
                    "" if multi is None else MULTI_MODEL_ID,
                )
            )
