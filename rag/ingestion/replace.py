"""Replace a ready document's content while its chunks keep answering: the new file is parsed, chunked
and embedded beside the live document (no claim, its status stays ready), then its file, fields and
chunks are swapped in one transaction (`rag.ingestion.store.chunks_swap_ready`).

A queued re-ingestion (`rag.services.document_file_replace`) moves the document to pending, and
retrieval reads ready documents only: the page would answer nothing until the worker finished. A
source's changed page (sources.sync) must never have such a moment.
"""

from __future__ import annotations

import uuid
from pathlib import PurePath

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction

from rag.ingestion.embed import documents_embed, documents_passages
from rag.ingestion.prepare import document_prepare
from rag.ingestion.screen import chunks_screen
from rag.ingestion.store import chunks_swap_ready
from rag.models import Document, document_upload_to
from rag.parsing import mime_type_guess
from rag.retrieval.calibration.triggers import fusion_changes_record
from rag.selectors import workspace_embedding_model, workspace_multilingual_model


def document_content_replace(
    *, document_id: uuid.UUID | str, content: bytes, filename: str, title: str = ""
) -> bool:
    """Swap in `content` as the ready document's file and chunks; False (nothing changed) when the
    document is not ready or changed meanwhile: the caller then re-queues it the ordinary way.

    Raises what ingestion raises (rag.errors.IngestError for a file without text, EmbeddingError):
    the old file and chunks are then untouched."""
    document = Document.objects.filter(pk=document_id, status=Document.Status.READY).first()
    if document is None:
        return False
    checksum_before = document.checksum
    old_name = document.file.name if document.file else ""
    name = PurePath(filename).name[:255]
    stored = default_storage.save(document_upload_to(document, name), ContentFile(content))
    try:
        document.file.name = stored
        document.filename = name
        document.mime_type = mime_type_guess(name)
        document.size_bytes = len(content)
        document.force = True
        if title:  # a title the source gives is chosen, as an upload's given title is
            document.title = title[:300]
            document.metadata = {}
        prepared = document_prepare(
            document=document,
            model_id=workspace_embedding_model(workspace_id=document.workspace_id),
            multi_model_id=workspace_multilingual_model(workspace_id=document.workspace_id),
        )
        if prepared is None:  # unreachable with force set; kept for the type
            raise ValueError("document_prepare skipped a forced document")
        vectors = documents_embed(prepared=[prepared], claim_id="")[0]
        documents_passages(prepared=[prepared])
        detections = chunks_screen(prepared=prepared, vectors=vectors)
        with transaction.atomic():
            swapped = chunks_swap_ready(
                prepared=prepared,
                vectors=vectors,
                detections=detections,
                checksum_before=checksum_before,
            )
            if swapped and old_name and old_name != stored:
                transaction.on_commit(lambda: default_storage.delete(old_name))
    except BaseException:
        default_storage.delete(stored)
        raise
    if not swapped:
        default_storage.delete(stored)
        return False
    fusion_changes_record(document_ids=[str(document.pk)])
    return True
