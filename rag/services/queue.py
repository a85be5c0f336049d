"""Ingestion's queue as the services use it: every write that makes documents pending sends their
messages through here, after the commit, once the rows they name exist (by task name, `rag.queue`)."""

from __future__ import annotations

import uuid

from django.db import transaction

from rag.queue import documents_ingest_enqueue as _documents_ingest_send


def documents_ingest_enqueue(document_ids: list[uuid.UUID | str]) -> None:
    """One ingestion message per document, sent after commit through one broker connection."""
    ids = [str(document_id) for document_id in document_ids]
    if ids:
        transaction.on_commit(lambda: _documents_ingest_send(document_ids=ids))
