"""Changes to existing documents: re-run, a file replaced, deletion, stuck ones reclaimed, a quarantined
chunk released."""

from __future__ import annotations

import uuid
from datetime import timedelta
from pathlib import PurePath
from typing import Any

from django.conf import settings
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from audit.models import AuditEntry
from audit.services import audit_change_record
from rag.models import Chunk, Document
from rag.parsing import mime_type_guess
from rag.preview import preview_cache_clear
from rag.retrieval.calibration.service import workspace_fusion_change_record
from rag.services.queue import documents_ingest_enqueue


def document_rerun(*, document_id: uuid.UUID | str, force: bool = True) -> bool:
    """Queue a ready or failed document (or one stuck in processing) again; False when it is already queued."""
    stale = timezone.now() - timedelta(seconds=settings.PARLEY_INGEST_STUCK_AFTER)
    rerunnable = Q(status__in=[Document.Status.READY, Document.Status.FAILED]) | Q(
        status=Document.Status.PROCESSING, heartbeat_at__lt=stale
    )
    return _requeue(
        Document.objects.filter(rerunnable, pk=document_id), document_id=document_id, force=force
    )


def _requeue(documents: QuerySet[Document], *, document_id: uuid.UUID | str, force: bool) -> bool:
    with transaction.atomic():
        updated = documents.update(
            status=Document.Status.PENDING,
            claim_id="",
            attempts=0,
            progress=0,
            error="",
            error_code="",
            force=force,
            queued_at=timezone.now(),
        )
        if updated:
            documents_ingest_enqueue([document_id])
    return bool(updated)


def document_file_replace(
    *, document: Document, file: File[Any], filename: str | None = None
) -> Document:
    """Fix a document with a new file and re-run it; the old file is removed once the change commits."""
    old_name = document.file.name if document.file else ""
    name = PurePath(filename or file.name or document.filename).name
    with transaction.atomic():
        document.file.save(name, file, save=False)
        document.filename = name[:255]
        document.mime_type = mime_type_guess(name)
        document.size_bytes = file.size or 0
        document.save(update_fields=["file", "filename", "mime_type", "size_bytes", "updated_at"])
        # Whatever its state, the document starts over; a worker still on the old file loses its claim.
        _requeue(Document.objects.filter(pk=document.pk), document_id=document.pk, force=True)
        if old_name and old_name != document.file.name:
            transaction.on_commit(lambda: default_storage.delete(old_name))
    document.refresh_from_db()
    return document


def document_delete(*, document_id: uuid.UUID | str) -> None:
    """Delete a document, its chunks (cascade) and, after commit, its file, figures and previews."""
    with transaction.atomic():
        # Lock the row before the cascade collects the chunks: an ingestion finishing at the same
        # moment then waits on its guarded UPDATE, finds the document gone and writes no chunks.
        document = Document.objects.select_for_update().filter(pk=document_id).first()
        if document is None:
            return
        file_name = document.file.name if document.file else ""
        shared_ready = document.status == Document.Status.READY and not document.conversation_id
        removed = document.chunk_count if shared_ready else 0
        figures = [
            entry.get("image_path", "") for entry in (document.metadata or {}).get("figures", [])
        ]
        document.delete()
        if removed:
            workspace_fusion_change_record(workspace_id=document.workspace_id, chunks=removed)
        if file_name:
            transaction.on_commit(lambda: default_storage.delete(file_name))
        # Its figures' images and cached previews go with it.
        transaction.on_commit(lambda: _files_delete([name for name in figures if name]))
        transaction.on_commit(lambda: preview_cache_clear(document_id=document_id))


def _files_delete(names: list[str]) -> None:
    for name in names:
        default_storage.delete(name)


def documents_reclaim_stuck() -> int:
    """Re-queue documents whose worker went silent, and pending ones whose message never ran."""
    stale = timezone.now() - timedelta(seconds=settings.PARLEY_INGEST_STUCK_AFTER)
    reclaimed = 0
    with transaction.atomic():
        stuck = Document.objects.filter(status=Document.Status.PROCESSING, heartbeat_at__lt=stale)
        for document_id in stuck.values_list("pk", flat=True):
            still_stuck = stuck.filter(pk=document_id)
            if still_stuck.update(
                status=Document.Status.PENDING, claim_id="", progress=0, queued_at=timezone.now()
            ):
                documents_ingest_enqueue([document_id])
                reclaimed += 1
        forgotten = Document.objects.filter(status=Document.Status.PENDING, queued_at__lt=stale)
        for document_id in forgotten.values_list("pk", flat=True):
            Document.objects.filter(pk=document_id).update(queued_at=timezone.now())
            documents_ingest_enqueue([document_id])
            reclaimed += 1
    return reclaimed


def chunk_release(*, document_id: uuid.UUID | str, chunk_id: uuid.UUID | str) -> bool:
    """Let a quarantined chunk back into retrieval (an admin read it and found no planted instruction).

    One conditional UPDATE; False when the chunk is not quarantined (already released, or another
    document's). A re-ingestion of the document scores its new chunks afresh.
    """
    now = timezone.now()
    with transaction.atomic():
        released = Chunk.objects.filter(
            pk=chunk_id, document_id=document_id, quarantined=True
        ).update(quarantined=False, released_at=now)
        if released:
            chunk = Chunk.objects.only("pk", "workspace_id", "document_id", "ordinal").get(
                pk=chunk_id
            )
            audit_change_record(
                instance=chunk,
                kind=AuditEntry.Kind.QUARANTINE_RELEASE,
                changes={"quarantined": [True, False], "released_at": [None, now.isoformat()]},
            )
    return bool(released)
