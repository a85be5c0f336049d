"""The ingestion pipeline: claim, read, parse, chunk, embed (outside any transaction), swap chunks; alone or in a batch.

A Celery message names one document; on its first attempt it also claims fresh pending
documents, up to PARLEY_INGEST_BATCH_DOCUMENTS, so the model sees full batches when files are
small. Every document still gets its own outcome, error, progress and chunk transaction.
"""

from __future__ import annotations

import logging
import random

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import InterfaceError, OperationalError

from guard.detector import Detection
from rag.errors import IngestError, TransientIngestError
from rag.ingestion.claims import (
    document_fail,
    document_finish_unchanged,
    document_release,
    documents_claim,
)
from rag.ingestion.embed import documents_embed, documents_passages, documents_progress_parsed
from rag.ingestion.prepare import PreparedDocument, document_prepare
from rag.ingestion.screen import chunks_screen, chunks_screen_batch
from rag.ingestion.store import chunks_replace
from rag.models import Document
from rag.queue import document_ingest_enqueue
from rag.retrieval.calibration.triggers import fusion_changes_record
from rag.selectors import workspace_embedding_model, workspace_multilingual_model
from textmodels.embeddings.errors import EmbeddingError

logger = logging.getLogger(__name__)

_TRANSIENT_DB = (OperationalError, InterfaceError)
Outcomes = dict[
    str, tuple[str, str]
]  # document id -> (ready | skipped | failed | not_claimed | retry, reason)


def document_ingest(*, document_id: str, claim_id: str, batch_limit: int = 1) -> str:
    """Ingest the document under claim `claim_id` (with up to `batch_limit - 1` fresh pending ones).

    Returns the named document's outcome: ready, skipped, failed or not_claimed. Raises
    TransientIngestError (after releasing its claim) when a later retry may succeed; batch mates
    that need a retry get messages of their own.
    """
    documents = documents_claim(document_id=document_id, claim_id=claim_id, batch_limit=batch_limit)
    if not documents:
        return "not_claimed"
    outcomes: Outcomes = {}
    try:
        _documents_run(documents=documents, claim_id=claim_id, outcomes=outcomes)
    except SoftTimeLimitExceeded:
        _out_of_time(documents=documents, claim_id=claim_id, outcomes=outcomes)
    for mate in documents[1:]:
        if outcomes[str(mate.pk)][0] == "retry":
            _requeue_later(document=mate)
    settled = [pk for pk, (outcome, _) in outcomes.items() if outcome in ("ready", "failed")]
    if settled:
        fusion_changes_record(document_ids=settled)
    outcome, reason = outcomes[str(documents[0].pk)]
    if outcome == "retry":
        raise TransientIngestError(reason)
    return outcome


def _documents_run(*, documents: list[Document], claim_id: str, outcomes: Outcomes) -> None:
    models: dict[object, tuple[str, str]] = {}
    prepared: list[PreparedDocument] = []
    for document in documents:
        try:
            if document.workspace_id not in models:
                models[document.workspace_id] = (
                    workspace_embedding_model(workspace_id=document.workspace_id),
                    workspace_multilingual_model(workspace_id=document.workspace_id),
                )
            model_id, multi_model_id = models[document.workspace_id]
            item = document_prepare(
                document=document, model_id=model_id, multi_model_id=multi_model_id
            )
        except SoftTimeLimitExceeded:
            raise
        except Exception as exc:  # each error becomes this document's outcome
            outcomes[str(document.pk)] = _settle(document=document, claim_id=claim_id, exc=exc)
            continue
        if item is None:
            document_finish_unchanged(document_id=str(document.pk), claim_id=claim_id)
            outcomes[str(document.pk)] = ("skipped", "")
        else:
            prepared.append(item)
    if prepared:
        _embed_and_store(prepared=prepared, claim_id=claim_id, outcomes=outcomes)


def _embed_and_store(
    *, prepared: list[PreparedDocument], claim_id: str, outcomes: Outcomes
) -> None:
    try:
        documents_progress_parsed(prepared=prepared, claim_id=claim_id)
        vectors = documents_embed(prepared=prepared, claim_id=claim_id)
        documents_passages(prepared=prepared)
    except SoftTimeLimitExceeded:
        raise
    except Exception as exc:
        if len(prepared) > 1 and not _transient(exc):
            # A batch-wide error names no culprit: each document runs alone, so only the bad one fails.
            logger.warning(
                "batch embedding failed (%s); embedding its %d documents one by one",
                exc,
                len(prepared),
            )
            for item in prepared:
                _embed_and_store(prepared=[item], claim_id=claim_id, outcomes=outcomes)
            return
        for item in prepared:
            outcomes[str(item.document.pk)] = _settle(
                document=item.document, claim_id=claim_id, exc=exc
            )
        return
    screened = _screened(prepared=prepared, vectors=vectors)
    for item, item_vectors, verdicts in zip(prepared, vectors, screened, strict=True):
        try:
            detections = (
                verdicts
                if verdicts is not None
                else chunks_screen(prepared=item, vectors=item_vectors)
            )
            stored = chunks_replace(
                prepared=item, vectors=item_vectors, claim_id=claim_id, detections=detections
            )
        except SoftTimeLimitExceeded:
            raise
        except Exception as exc:
            outcomes[str(item.document.pk)] = _settle(
                document=item.document, claim_id=claim_id, exc=exc
            )
            continue
        outcomes[str(item.document.pk)] = ("ready" if stored else "not_claimed", "")


def _screened(
    *, prepared: list[PreparedDocument], vectors: list[list[list[float]]]
) -> list[list[Detection]] | list[None]:
    """The batch's verdicts from one detector batch; on an error none (each document is screened
    alone, so only the one whose text raises fails)."""
    try:
        return chunks_screen_batch(prepared=prepared, vectors=vectors)
    except SoftTimeLimitExceeded:
        raise
    except Exception:
        logger.warning("batch screening failed; screening its documents one by one", exc_info=True)
        return [None] * len(prepared)


def _transient(exc: Exception) -> bool:
    return isinstance(exc, (*_TRANSIENT_DB, TransientIngestError)) or (
        isinstance(exc, EmbeddingError) and exc.transient
    )


def _settle(*, document: Document, claim_id: str, exc: Exception) -> tuple[str, str]:
    """Record why one document failed, or release it for a retry when the error is transient."""
    document_id = str(document.pk)
    if _transient(exc):
        reason = str(exc) or type(exc).__name__
        released = document_release(document=document, claim_id=claim_id, reason=reason)
        return ("retry", reason) if released else ("failed", reason)
    if isinstance(exc, IngestError):
        document_fail(
            document_id=document_id, claim_id=claim_id, code=exc.code, message=exc.message
        )
    elif isinstance(exc, EmbeddingError):
        document_fail(
            document_id=document_id, claim_id=claim_id, code="embedding_failed", message=str(exc)
        )
    else:  # a bug or an unexpected library error: still say why, never stay stuck
        logger.error("ingestion of document %s failed unexpectedly", document_id, exc_info=exc)
        message = f"Unexpected error while ingesting: {type(exc).__name__}: {exc}"[:2000]
        document_fail(
            document_id=document_id, claim_id=claim_id, code="internal_error", message=message
        )
    return ("failed", "")


def _out_of_time(*, documents: list[Document], claim_id: str, outcomes: Outcomes) -> None:
    """A lone document that hits the time limit fails; a batch's unfinished documents are retried alone instead."""
    unfinished = [document for document in documents if str(document.pk) not in outcomes]
    limit = settings.CELERY_TASK_TIME_LIMIT
    for document in unfinished:
        if len(documents) == 1:
            message = f"Ingestion took longer than the {limit} s limit; split the file and retry."
            document_fail(
                document_id=str(document.pk), claim_id=claim_id, code="timeout", message=message
            )
            outcomes[str(document.pk)] = ("failed", "")
        else:
            exc = TransientIngestError(f"the batch it ran in reached the {limit} s limit")
            outcomes[str(document.pk)] = _settle(document=document, claim_id=claim_id, exc=exc)


def _requeue_later(*, document: Document) -> None:
    """A batch mate released for a retry gets its own message, with the same backoff a retried task uses."""
    countdown = min(300, 2 ** (document.attempts + 1)) + random.uniform(0, 1)  # noqa: S311
    document_ingest_enqueue(document_id=str(document.pk), countdown=countdown)
