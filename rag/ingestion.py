"""The ingestion pipeline for one document: claim, read, parse, chunk, embed (outside any transaction), swap chunks.

The claim is a conditional UPDATE keyed by the Celery task id, so a message redelivered after
its worker died takes its own claim back, a stale claim (no heartbeat for
PARLEY_INGEST_STUCK_AFTER) is taken over, and a second copy of a live task does nothing.
"""

from __future__ import annotations

import hashlib
import logging
from datetime import timedelta

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.contrib.postgres.search import SearchVector
from django.db import DatabaseError, InterfaceError, OperationalError, transaction
from django.db.models import F, Q, TextField
from django.db.models.functions import Cast
from django.utils import timezone

from rag.chunking import ChunkDraft, chunks_build
from rag.embeddings import EmbeddingError, embedding_provider_get
from rag.errors import IngestError, TransientIngestError
from rag.language import iso639_3, language_detect, search_config_for
from rag.models import Chunk, Document
from rag.parsing import ParsedDocument, document_parse
from rag.selectors import workspace_embedding_model

logger = logging.getLogger(__name__)

_TRANSIENT_DB = (OperationalError, InterfaceError)
PARSED_PROGRESS = 15
EMBEDDED_PROGRESS = 95


def document_ingest(*, document_id: str, claim_id: str) -> str:
    """Ingest one document under claim `claim_id`; returns ready, skipped, failed or not_claimed.

    Raises TransientIngestError (after releasing the claim) when a later retry may succeed.
    """
    document = _claim(document_id=document_id, claim_id=claim_id)
    if document is None:
        return "not_claimed"
    try:
        return _ingest_claimed(document=document, claim_id=claim_id)
    except IngestError as exc:
        _fail(document_id=document_id, claim_id=claim_id, code=exc.code, message=exc.message)
        return "failed"
    except SoftTimeLimitExceeded:
        message = f"Ingestion took longer than the {settings.CELERY_TASK_TIME_LIMIT} s limit; split the file and retry."
        _fail(document_id=document_id, claim_id=claim_id, code="timeout", message=message)
        return "failed"
    except (*_TRANSIENT_DB, TransientIngestError) as exc:
        return _release_or_fail(document=document, claim_id=claim_id, reason=str(exc) or type(exc).__name__)
    except EmbeddingError as exc:
        if exc.transient:
            return _release_or_fail(document=document, claim_id=claim_id, reason=str(exc))
        _fail(document_id=document_id, claim_id=claim_id, code="embedding_failed", message=str(exc))
        return "failed"
    except Exception as exc:  # a bug or an unexpected library error: still say why, never stay stuck
        logger.exception("ingestion of document %s failed unexpectedly", document_id)
        message = f"Unexpected error while ingesting: {type(exc).__name__}: {exc}"[:2000]
        _fail(document_id=document_id, claim_id=claim_id, code="internal_error", message=message)
        return "failed"


def _claim(*, document_id: str, claim_id: str) -> Document | None:
    now = timezone.now()
    stale = now - timedelta(seconds=settings.PARLEY_INGEST_STUCK_AFTER)
    previous = Document.objects.filter(pk=document_id).values("status", "claim_id", "error").first()
    if previous is None:
        return None
    claimable = (
        Q(status=Document.Status.PENDING)
        | Q(status=Document.Status.PROCESSING, claim_id=claim_id)  # our own message, redelivered after a crash
        | Q(status=Document.Status.PROCESSING, heartbeat_at__lt=stale)
    )
    claimed = Document.objects.filter(claimable, pk=document_id).update(
        status=Document.Status.PROCESSING,
        claim_id=claim_id,
        attempts=F("attempts") + 1,
        progress=0,
        started_at=now,
        heartbeat_at=now,
        error="",
        error_code="",
    )
    if not claimed:
        return None
    document = Document.objects.get(pk=document_id)
    if document.attempts > settings.PARLEY_INGEST_MAX_ATTEMPTS:
        crashed = previous["status"] == Document.Status.PROCESSING
        cause = "the worker stopped mid-document (killed, or out of memory)" if crashed else previous["error"]
        message = f"Gave up after {document.attempts - 1} attempts: {cause or 'unknown cause'}."
        _fail(document_id=document_id, claim_id=claim_id, code="worker_lost" if crashed else "gave_up", message=message)
        return None
    return document


def _ingest_claimed(*, document: Document, claim_id: str) -> str:
    data = _read(document)
    checksum = hashlib.sha256(data).hexdigest()
    model_id = workspace_embedding_model(workspace_id=document.workspace_id)
    unchanged = (checksum, model_id) == (document.checksum, document.embedding_model)
    if unchanged and document.chunk_count and not document.force:
        _finish_unchanged(document_id=str(document.pk), claim_id=claim_id)
        return "skipped"
    parsed = document_parse(data=data, filename=document.filename)
    language = language_detect("\n".join(block.text for block in parsed.blocks[:400]))
    drafts = chunks_build(
        blocks=parsed.blocks,
        title=document.title,
        size=settings.PARLEY_CHUNK_TOKENS,
        overlap=settings.PARLEY_CHUNK_OVERLAP_TOKENS,
    )
    _progress(document_id=str(document.pk), claim_id=claim_id, percent=PARSED_PROGRESS)
    vectors = _embed(drafts=drafts, model_id=model_id, document_id=str(document.pk), claim_id=claim_id)
    return _swap_chunks(
        document=document,
        claim_id=claim_id,
        parsed=parsed,
        drafts=drafts,
        vectors=vectors,
        model_id=model_id,
        checksum=checksum,
        language=language,
    )


def _read(document: Document) -> bytes:
    if not document.file:
        raise IngestError("file_missing", "The document has no file; upload it again.")
    limit = settings.PARLEY_UPLOAD_MAX_BYTES
    try:
        size = document.file.size
        if size > limit:
            raise IngestError("file_too_large", f"The file is {size:,} bytes, over the {limit:,}-byte limit.")
        with document.file.open("rb") as handle:
            return handle.read()
    except FileNotFoundError as exc:
        raise IngestError("file_missing", "The document's file is missing from storage; upload it again.") from exc


def _embed(*, drafts: list[ChunkDraft], model_id: str, document_id: str, claim_id: str) -> list[list[float]]:
    provider = embedding_provider_get(model_id=model_id)
    batch = settings.PARLEY_EMBEDDING_BATCH_SIZE
    vectors: list[list[float]] = []
    for start in range(0, len(drafts), batch):
        vectors.extend(provider.embed_texts([draft.embed_text for draft in drafts[start : start + batch]]))
        if len(vectors) == len(drafts) and start == 0:
            break  # a single batch: the chunk swap that follows reports 100 %
        done = len(vectors) / len(drafts)
        percent = PARSED_PROGRESS + int((EMBEDDED_PROGRESS - PARSED_PROGRESS) * done)
        _progress(document_id=document_id, claim_id=claim_id, percent=percent)
    return vectors


def _progress(*, document_id: str, claim_id: str, percent: int) -> None:
    """Report progress, which doubles as the heartbeat; a lost claim stops the work."""
    updated = Document.objects.filter(pk=document_id, claim_id=claim_id, status=Document.Status.PROCESSING).update(
        progress=percent, heartbeat_at=timezone.now()
    )
    if not updated:
        raise IngestError("claim_lost", "Another worker took this document over.")


def _swap_chunks(
    *,
    document: Document,
    claim_id: str,
    parsed: ParsedDocument,
    drafts: list[ChunkDraft],
    vectors: list[list[float]],
    model_id: str,
    checksum: str,
    language: str,
) -> str:
    config = search_config_for(language)
    metadata = {"filename": document.filename, "languages": iso639_3(language), "modality": parsed.modality}
    chunks = [
        Chunk(
            document_id=document.pk,
            workspace_id=document.workspace_id,
            ordinal=draft.ordinal,
            text=draft.text,
            heading_path=draft.heading_path,
            page_number=draft.page_number,
            bbox=draft.bbox,
            start_time=draft.start_time,
            end_time=draft.end_time,
            metadata=metadata,
            token_count=draft.token_count,
            embedding=vector,
            embedding_dims=len(vector),
            embedding_model=model_id,
            search_config=config,
        )
        for draft, vector in zip(drafts, vectors, strict=True)
    ]
    with transaction.atomic():
        # The conditional UPDATE is the guard: zero rows means another worker took the document over.
        owned = Document.objects.filter(pk=document.pk, claim_id=claim_id, status=Document.Status.PROCESSING)
        finished = owned.update(
            status=Document.Status.READY,
            checksum=checksum,
            language=language,
            embedding_model=model_id,
            chunk_count=len(chunks),
            progress=100,
            claim_id="",
            force=False,
            attempts=0,
            finished_at=timezone.now(),
        )
        if not finished:
            return "not_claimed"
        Chunk.objects.filter(document_id=document.pk).delete()
        Chunk.objects.bulk_create(chunks, batch_size=500)
        Chunk.objects.filter(document_id=document.pk).update(
            search_vector=SearchVector(Cast("heading_path", TextField()), config=config, weight="A")
            + SearchVector("text", config=config, weight="B")
        )
    return "ready"


def _finish_unchanged(*, document_id: str, claim_id: str) -> None:
    Document.objects.filter(pk=document_id, claim_id=claim_id).update(
        status=Document.Status.READY, progress=100, claim_id="", attempts=0, finished_at=timezone.now()
    )


def _fail(*, document_id: str, claim_id: str, code: str, message: str) -> None:
    """Failed documents keep no chunks: nothing half-written stays searchable."""
    with transaction.atomic():
        owned = Document.objects.select_for_update().filter(pk=document_id, claim_id=claim_id)
        if not owned.exists():
            return
        Chunk.objects.filter(document_id=document_id).delete()
        owned.update(
            status=Document.Status.FAILED,
            error_code=code,
            error=message,
            progress=0,
            chunk_count=0,
            checksum="",
            claim_id="",
            force=False,
            finished_at=timezone.now(),
        )


def _release_or_fail(*, document: Document, claim_id: str, reason: str) -> str:
    """Give the claim back before a retry, or fail once the attempts are spent."""
    if document.attempts >= settings.PARLEY_INGEST_MAX_ATTEMPTS:
        message = f"Gave up after {document.attempts} attempts: {reason}"
        _fail(document_id=str(document.pk), claim_id=claim_id, code="gave_up", message=message)
        return "failed"
    try:
        Document.objects.filter(pk=document.pk, claim_id=claim_id).update(
            status=Document.Status.PENDING, claim_id="", progress=0, error=f"Retrying: {reason}"[:2000]
        )
    except DatabaseError:
        logger.warning("could not release document %s; the stale-claim sweep will", document.pk)
    raise TransientIngestError(reason)
