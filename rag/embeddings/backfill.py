"""The multilingual vectors of chunks that lack the workspace's current one, computed in the background.

Chunks stored before the multilingual side existed, or under another multilingual model (a workspace
switched it), carry a NULL vector or another model's tag. Retrieval reads only vectors tagged with the
workspace's current multilingual model (`rag.retrieval.sql`), so while this runs a search sees the
chunks already done on that side and every chunk on the others: never a mix of vector spaces, and never
an error. Each batch is one short UPDATE guarded by the chunk's text and the workspace's model, so a
chunk re-ingested or a model switched meanwhile is left for the next run.

`chunks_multilingual_backfill_queue` asks for a run once (a cache key) and after commit; the periodic
sweep (`multilingual_backfill_sweep`) queues one per workspace that still has such chunks, so
existing data gets its vectors without anyone asking.
"""

from __future__ import annotations

import logging
import uuid

from django.core.cache import cache
from django.db import connection, transaction

from rag.queue import chunks_multilingual_backfill_enqueue
from textmodels.embeddings import MULTI_MODELS, embed_texts

logger = logging.getLogger(__name__)

BATCH = 64
GUARD_SECONDS = 600

_STALE = """
SELECT c.id, CASE WHEN c.heading_path = '[]'::jsonb THEN d.title ELSE d.title || ' › ' ||
       array_to_string(ARRAY(SELECT jsonb_array_elements_text(c.heading_path)), ' › ') END, c.text
FROM rag_chunk AS c JOIN rag_document AS d ON d.id = c.document_id
WHERE c.workspace_id = %(workspace_id)s AND c.embedding_multi_model <> %(model)s
ORDER BY c.id
LIMIT %(limit)s
"""

_UPDATE = """
UPDATE rag_chunk AS c SET embedding_multi = r.v::vector, embedding_multi_model = %(model)s
FROM unnest(%(ids)s::uuid[], %(texts)s::text[], %(vectors)s::text[]) AS r(id, text, v)
WHERE c.id = r.id AND c.text = r.text AND c.workspace_id = %(workspace_id)s
"""


def chunks_multilingual_backfill(*, workspace_id: uuid.UUID | str, limit: int | None = None) -> int:
    """Give the workspace's chunks the current multilingual model's vector (or none, when the workspace
    has no multilingual model); returns how many chunks were updated."""
    from rag.selectors import workspace_multilingual_model

    done = 0
    while limit is None or done < limit:
        model = workspace_multilingual_model(workspace_id=workspace_id)
        if not model:
            return done + _clear(workspace_id=str(workspace_id))
        if model not in MULTI_MODELS:
            logger.warning("workspace %s: unknown multilingual model %r", workspace_id, model)
            return done
        size = BATCH if limit is None else min(BATCH, limit - done)
        with connection.cursor() as cursor:
            cursor.execute(
                _STALE, {"workspace_id": str(workspace_id), "model": model, "limit": size}
            )
            rows = cursor.fetchall()
        if not rows:
            break
        texts = [f"{prefix}\n\n{text}" if prefix else text for _, prefix, text in rows]
        vectors = embed_texts(texts, model_id=model)
        with transaction.atomic(), connection.cursor() as cursor:
            # The model may have been switched while this batch was embedded: then write nothing.
            if workspace_multilingual_model(workspace_id=workspace_id) != model:
                continue
            cursor.execute(
                _UPDATE,
                {
                    "workspace_id": str(workspace_id),
                    "model": model,
                    "ids": [row[0] for row in rows],
                    "texts": [row[2] for row in rows],
                    "vectors": ["[" + ",".join(map(repr, v)) + "]" for v in vectors],
                },
            )
            done += cursor.rowcount
            if cursor.rowcount == 0:
                break  # every chunk of the batch changed meanwhile: the next run takes them
    return done


def _clear(*, workspace_id: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE rag_chunk SET embedding_multi = NULL, embedding_multi_model = ''"
            " WHERE workspace_id = %s AND embedding_multi_model <> ''",
            [workspace_id],
        )
        return int(cursor.rowcount)


def chunks_multilingual_backfill_queue(*, workspace_id: uuid.UUID | str) -> bool:
    """Queue a backfill of the workspace after commit, once while one is pending; False if one is."""
    if not cache.add(f"parley:multi-backfill:{workspace_id}", 1, GUARD_SECONDS):
        return False
    key = str(workspace_id)
    transaction.on_commit(lambda: chunks_multilingual_backfill_enqueue(workspace_id=key))
    return True


def multilingual_backfill_sweep() -> int:
    """Queue a backfill for every workspace that has chunks without its current multilingual vector."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT c.workspace_id FROM rag_chunk AS c"
            " LEFT JOIN rag_workspaceembedding AS e ON e.workspace_id = c.workspace_id"
            " WHERE c.embedding_multi_model <> coalesce(e.multilingual_model, %s)",
            [_default()],
        )
        workspaces = [row[0] for row in cursor.fetchall()]
    return sum(chunks_multilingual_backfill_queue(workspace_id=pk) for pk in workspaces)


def _default() -> str:
    from textmodels.embeddings import multilingual_model_default

    return multilingual_model_default()
