"""Write-side knowledge operations: add, re-run, replace and delete documents; reclaim stuck ones; switch models.

Every path that queues work does so with `_enqueue`: after commit, once the rows it names exist.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path, PurePath
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from audit.models import AuditEntry
from audit.services import audit_change_record, audit_created_record
from bots.models import Bot
from core.models import Workspace
from rag.models import Chunk, Document, WorkspaceEmbedding, document_upload_to
from rag.parsing import AUDIO_EXTENSIONS, SUPPORTED_EXTENSIONS, mime_type_guess
from rag.parsing.titles import document_title
from rag.preview import preview_cache_clear
from rag.queue import documents_ingest_enqueue
from rag.retrieval.calibration.service import workspace_fusion_change_record
from rag.selectors import (
    workspace_embedding_model,
    workspace_media_models,
    workspace_multilingual_model,
)

TRANSCRIPTION_MISSING = (
    "Audio and video files need a transcription endpoint, and this workspace has none: set its"
    " transcription model (admin: Workspace media models; the endpoint is"
    " PARLEY_TRANSCRIPTION_OPENAI_BASE_URL), or upload the recording's VTT/SRT subtitle file instead."
)


def _enqueue(document_ids: list[uuid.UUID | str]) -> None:
    """One ingestion message per document, sent after commit through one broker connection."""
    ids = [str(document_id) for document_id in document_ids]
    if ids:
        transaction.on_commit(lambda: documents_ingest_enqueue(document_ids=ids))


@dataclass(frozen=True)
class NewFile:
    """One uploaded file and what to call it (the title defaults to the file's name)."""

    file: (
        File[Any] | Path
    )  # a Path is opened only while it is stored: a big folder never holds every file open
    filename: str | None = None
    title: str = ""
    source_url: str = ""
    upload_key: str = ""  # unique per workspace and external user (Document.upload_key)


def document_create(
    *,
    workspace: Workspace,
    file: File[Any],
    filename: str | None = None,
    title: str = "",
    bots: Iterable[Bot] = (),
    conversation_id: uuid.UUID | str | None = None,
    external_user_id: str = "",
    source_url: str = "",
) -> Document:
    """Store an uploaded file as a pending document and queue its ingestion (see `documents_create`)."""
    new = NewFile(file=file, filename=filename, title=title, source_url=source_url)
    return documents_create(
        workspace=workspace,
        files=[new],
        bots=bots,
        conversation_id=conversation_id,
        external_user_id=external_user_id,
    )[0]


def documents_create(
    *,
    workspace: Workspace,
    files: Iterable[NewFile],
    bots: Iterable[Bot] = (),
    conversation_id: uuid.UUID | str | None = None,
    external_user_id: str = "",
) -> list[Document]:
    """Store uploaded files as pending documents and queue their ingestion, all in one transaction.

    The rows and bot links go in with one INSERT each (one by one, a folder's files cost the web
    process CPU per file; bench/ingest), the messages leave after commit. A file over PARLEY_UPLOAD_MAX_BYTES, or
    a recording when the workspace has no transcription model, is not stored: its document is created
    failed, saying so. When anything fails, the files already
    stored are removed again, so an error leaves neither rows nor files behind.
    """
    bots = list(bots)
    if conversation_id and bots:
        raise ValidationError(
            "A document belongs either to bots or to one conversation session, not both."
        )
    if any(bot.workspace_id != workspace.pk for bot in bots):
        raise ValidationError("Every bot must belong to the document's workspace.")
    documents: list[Document] = []
    transcribes = bool(workspace_media_models(workspace_id=workspace.pk)[1])
    try:
        with transaction.atomic():
            for new in files:
                with _file_open(new.file) as file:
                    document = _document_new(
                        workspace=workspace,
                        new=new,
                        file=file,
                        conversation_id=conversation_id,
                        external_user_id=external_user_id,
                        transcribes=transcribes,
                    )
                    documents.append(document)
                    if document.status == Document.Status.PENDING:
                        document.file.save(document.filename, file, save=False)
            Document.objects.bulk_create(documents, batch_size=500)
            links = [
                Document.bots.through(document_id=document.pk, bot_id=bot.pk)
                for document in documents
                for bot in bots
            ]
            Document.bots.through.objects.bulk_create(links, batch_size=1000)
            # bulk_create sends no model signal: the uploads' audit entries are written here.
            audit_created_record(instances=documents)
            _enqueue(
                [
                    document.pk
                    for document in documents
                    if document.status == Document.Status.PENDING
                ]
            )
    except BaseException:
        for document in documents:
            _document_folder_clear(document)
        raise
    return documents


def _document_folder_clear(document: Document) -> None:
    """Remove what the storage holds for a document that was never created (a partly written file too)."""
    folder = document_upload_to(document, "").rstrip("/")
    if default_storage.exists(folder):
        for name in default_storage.listdir(folder)[1]:
            default_storage.delete(f"{folder}/{name}")


@contextmanager
def _file_open(source: File[Any] | Path) -> Iterator[File[Any]]:
    if isinstance(source, Path):
        with source.open("rb") as handle:
            yield File(handle, name=source.name)
    else:
        yield source


def _document_new(
    *,
    workspace: Workspace,
    new: NewFile,
    file: File[Any],
    conversation_id: uuid.UUID | str | None,
    external_user_id: str,
    transcribes: bool,
) -> Document:
    name = PurePath(new.filename or file.name or "document").name
    size = file.size or 0
    limit = settings.PARLEY_UPLOAD_MAX_BYTES
    now = timezone.now()
    automatic = document_title(filename=name, url=new.source_url)
    document = Document(
        workspace=workspace,
        conversation_id=conversation_id,
        external_user_id=external_user_id,
        # Until its file is read (rag.ingestion.prepare), a document without a given title is
        # named by the title rule from what is known now (its file name, else its URL); the
        # ingestion replaces a title the rule gave, never one given (rag.parsing.titles).
        title=(new.title or automatic)[:300],
        metadata={} if new.title else {"title_auto": automatic},
        source_url=new.source_url,
        upload_key=new.upload_key,
        filename=name[:255],
        mime_type=mime_type_guess(name),
        size_bytes=size,
        queued_at=now,
    )
    if size > limit:
        document.status = Document.Status.FAILED
        document.error_code = "file_too_large"
        document.error = (
            f"The file is {size:,} bytes, over the {limit:,}-byte limit; it was not stored."
        )
        document.finished_at = now
    elif PurePath(name).suffix.lower() in AUDIO_EXTENSIONS and not transcribes:
        document.status = Document.Status.FAILED
        document.error_code = "transcription_not_configured"
        document.error = TRANSCRIPTION_MISSING
        document.finished_at = now
    return document


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
            _enqueue([document_id])
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
                _enqueue([document_id])
                reclaimed += 1
        forgotten = Document.objects.filter(status=Document.Status.PENDING, queued_at__lt=stale)
        for document_id in forgotten.values_list("pk", flat=True):
            Document.objects.filter(pk=document_id).update(queued_at=timezone.now())
            _enqueue([document_id])
            reclaimed += 1
    return reclaimed


def workspace_embedding_model_set(
    *, workspace: Workspace, embedding_model: str, multilingual_model: str | None = None
) -> int:
    """Switch a workspace's embedding model and re-embed its documents in the background; returns how many.

    `multilingual_model` (None: unchanged; "" none): the model of every chunk's second vector. Switching
    only that one keeps the documents and recomputes that vector in the background
    (`rag.embeddings.backfill`); search reads only vectors tagged with the current model meanwhile."""
    from rag.embeddings.backfill import chunks_multilingual_backfill_queue
    from rag.passages.backfill import chunks_passages_backfill_queue
    from textmodels.embeddings import LOCAL_MODEL_ID, MULTI_MODELS

    kind, _, name = embedding_model.partition("/")
    if embedding_model != LOCAL_MODEL_ID and not (kind == "openai" and name):
        message = f"Unknown embedding model {embedding_model!r}: use {LOCAL_MODEL_ID!r} or 'openai/<model>'."
        raise ValidationError(message)
    if multilingual_model and multilingual_model not in MULTI_MODELS:
        choices = ", ".join(repr(model) for model in MULTI_MODELS)
        raise ValidationError(
            f"Unknown multilingual model {multilingual_model!r}: use {choices} or ''."
        )
    with transaction.atomic():
        current_multi = workspace_multilingual_model(workspace_id=workspace.pk)
        multi = current_multi if multilingual_model is None else multilingual_model
        if multi != current_multi:
            WorkspaceEmbedding.objects.update_or_create(
                workspace=workspace,
                defaults={
                    "embedding_model": workspace_embedding_model(workspace_id=workspace.pk),
                    "multilingual_model": multi,
                },
            )
            chunks_multilingual_backfill_queue(workspace_id=workspace.pk)
            # The chunks' passages carry that model's vectors too (rag.passages.backfill).
            chunks_passages_backfill_queue(workspace_id=workspace.pk)
        if workspace_embedding_model(workspace_id=workspace.pk) == embedding_model:
            return 0
        WorkspaceEmbedding.objects.update_or_create(
            workspace=workspace,
            defaults={"embedding_model": embedding_model, "multilingual_model": multi},
        )
        ready = Document.objects.filter(workspace=workspace, status=Document.Status.READY)
        document_ids = list(ready.values_list("pk", flat=True))
        for document_id in document_ids:
            document_rerun(document_id=document_id, force=False)
    return len(document_ids)


def documents_create_from_paths(
    *, workspace: Workspace, paths: Iterable[Path], bots: Iterable[Bot] = ()
) -> list[Document]:
    """Add files, and folders read recursively (supported, non-hidden files only), as pending documents."""
    files = [NewFile(file=path) for path in _files_under(paths)]
    return documents_create(workspace=workspace, files=files, bots=bots)


def _files_under(paths: Iterable[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(
                sorted(
                    child
                    for child in path.rglob("*")
                    if child.is_file()
                    and child.suffix.lower() in SUPPORTED_EXTENSIONS
                    and not any(part.startswith(".") for part in child.relative_to(path).parts)
                )
            )
        elif path.is_file():
            found.append(path)
        else:
            raise ValidationError(f"No such file or folder: {path}")
    return found


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
