"""Ingestion's queue: every write that makes documents pending sends their messages through here, after
the commit, once the rows they name exist."""

from __future__ import annotations

import uuid

from django.db import transaction


def documents_ingest_enqueue(document_ids: list[uuid.UUID | str]) -> None:
    """One ingestion message per document, sent after commit through one broker connection."""
    from rag.tasks import document_ingest_task

    def publish() -> None:
        with document_ingest_task.app.producer_or_acquire() as producer:
            for document_id in document_ids:
                document_ingest_task.apply_async((str(document_id),), producer=producer)

    if document_ids:
        transaction.on_commit(publish)
