"""New documents: files uploaded or read from paths become pending documents, queued for ingestion."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import transaction
from django.utils import timezone

from audit.services import audit_created_record
from bots.models import Bot
from core.models import Workspace
from rag.models import Document, document_upload_to
from rag.parsing import AUDIO_EXTENSIONS, SUPPORTED_EXTENSIONS, mime_type_guess
from rag.parsing.titles import document_title
from rag.selectors import (
    workspace_media_models,
)
from rag.services.queue import documents_ingest_enqueue

TRANSCRIPTION_MISSING = (
    "Audio and video files need a transcription endpoint, and this workspace has none: set its"
    " transcription model (admin: Workspace media models; the endpoint is"
    " PARLEY_TRANSCRIPTION_OPENAI_BASE_URL), or upload the recording's VTT/SRT subtitle file instead."
)


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
            documents_ingest_enqueue(
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
