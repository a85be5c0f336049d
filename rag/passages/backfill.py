"""The passages of chunks stored without them, or under another model, made in the background.

Chunks ingested before passages existed, or whose passages were made with a model the workspace has
since left (its multilingual model switched), are re-made here in batches; chunks still in a model the
workspace left are not (their re-ingestion in the new model makes their passages). Until then the
composer splits and embeds those chunks itself (conversations.llm.choose), so no answer fails. Each
batch's write is joined to the chunk by its id and text, so a chunk re-ingested meanwhile is left
alone (its ingestion made its passages).

`chunks_passages_backfill_queue` asks for a run once (a cache key) and after commit; the periodic
sweep (`passages_backfill_sweep`) queues one per workspace that still has such chunks.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from django.core.cache import cache
from django.db import connection, transaction

from rag.passages.make import PassageSource, passages_make, passages_write
from rag.queue import chunks_passages_backfill_enqueue
from textmodels.embeddings import MULTI_MODELS

logger = logging.getLogger(__name__)

BATCH = 32
GUARD_SECONDS = 600

_STALE = """
SELECT c.id, c.text, d.title, c.ordinal = 0, c.ordinal = d.chunk_count - 1
FROM rag_chunk AS c JOIN rag_document AS d ON d.id = c.document_id
LEFT JOIN rag_chunkpassages AS p ON p.chunk_id = c.id
WHERE c.workspace_id = %(workspace_id)s AND c.embedding_model = %(model)s
  AND (p.chunk_id IS NULL OR p.model <> %(model)s OR p.multi_model <> %(multi_model)s)
ORDER BY c.id
LIMIT %(limit)s
"""


def chunks_passages_backfill(*, workspace_id: uuid.UUID | str, limit: int | None = None) -> int:
    """Make the passages of the workspace's chunks that lack them for its current models; returns how
    many chunks got them."""
    from rag.selectors import workspace_embedding_model, workspace_multilingual_model

    done = 0
    while limit is None or done < limit:
        model = workspace_embedding_model(workspace_id=workspace_id)
        multi_model = workspace_multilingual_model(workspace_id=workspace_id)
        if multi_model and multi_model not in MULTI_MODELS:
            multi_model = ""  # an unknown multilingual model: the monolingual side still serves
        size = BATCH if limit is None else min(BATCH, limit - done)
        params: dict[str, Any] = {
            "workspace_id": str(workspace_id),
            "model": model,
            "multi_model": multi_model,
            "limit": size,
        }
        with connection.cursor() as cursor:
            cursor.execute(_STALE, params)
            rows = cursor.fetchall()
        if not rows:
            break
        sources = [
            PassageSource(
                text=text,
                title=title,
                starts_clean=True if first else None,
                ends_clean=True if last else None,
            )
            for _, text, title, first, last in rows
        ]
        made = passages_make(sources=sources, model_id=model, multi_model_id=multi_model)
        with transaction.atomic():
            # The model may have been switched while this batch was embedded: then write nothing.
            if workspace_embedding_model(workspace_id=workspace_id) != model:
                continue
            written = passages_write(chunks=[(row[0], row[1]) for row in rows], made=made)
        done += written
        if written == 0:
            break  # every chunk of the batch changed meanwhile: the next run takes them
    return done


def chunks_passages_backfill_queue(*, workspace_id: uuid.UUID | str) -> bool:
    """Queue a backfill of the workspace after commit, once while one is pending; False if one is."""
    if not cache.add(f"parley:passages-backfill:{workspace_id}", 1, GUARD_SECONDS):
        return False
    key = str(workspace_id)
    transaction.on_commit(lambda: chunks_passages_backfill_enqueue(workspace_id=key))
    return True


def passages_backfill_sweep() -> int:
    """Queue a backfill for every workspace that has chunks without passages for its current models."""
    from textmodels.embeddings import embedding_model_default, multilingual_model_default

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT c.workspace_id FROM rag_chunk AS c"
            " LEFT JOIN rag_workspaceembedding AS e ON e.workspace_id = c.workspace_id"
            " LEFT JOIN rag_chunkpassages AS p ON p.chunk_id = c.id"
            " WHERE c.embedding_model = coalesce(e.embedding_model, %(model)s)"
            " AND (p.chunk_id IS NULL OR p.model <> c.embedding_model"
            " OR p.multi_model <> coalesce(e.multilingual_model, %(multi_model)s))",
            {"model": embedding_model_default(), "multi_model": multilingual_model_default()},
        )
        workspaces = [row[0] for row in cursor.fetchall()]
    return sum(chunks_passages_backfill_queue(workspace_id=pk) for pk in workspaces)
