"""Claims on documents being ingested: take one (with fresh pending ones as a batch), report progress, release, fail.

A claim is the Celery task id in `claim_id`, moved only by conditional UPDATEs. A message
redelivered after its worker died takes its own document back and hands the batch mates it
had taken to messages of their own; documents on a retry always run alone, so one that kills
its worker never takes its batch mates down with it.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import DatabaseError, transaction
from django.db.models import Case, F, IntegerField, Q, Value, When
from django.utils import timezone

from rag.models import Chunk, Document
from rag.queue import document_ingest_enqueue

logger = logging.getLogger(__name__)

# A batch never adds files past this many bytes: large files run alone, well inside the task's time limit.
BATCH_MAX_BYTES = 2 * 1024 * 1024


def documents_claim(*, document_id: str, claim_id: str, batch_limit: int = 1) -> list[Document]:
    """Claim the document, then (on its first attempt) up to `batch_limit - 1` fresh pending ones.

    Returns the claimed documents, the named one first; an empty list when it was not ours to take.
    """
    now = timezone.now()
    previous = (
        Document.objects.filter(pk=document_id)
        .values("status", "claim_id", "error", "heartbeat_at")
        .first()
    )
    if previous is None or not _claimable_now(previous, claim_id=claim_id, now=now):
        return []  # the common case of a message whose document a batch already took: one query
    stale = now - timedelta(seconds=settings.PARLEY_INGEST_STUCK_AFTER)
    claimable = (
        Q(status=Document.Status.PENDING)
        | Q(
            status=Document.Status.PROCESSING, claim_id=claim_id
        )  # our own message, redelivered after a crash
        | Q(status=Document.Status.PROCESSING, heartbeat_at__lt=stale)
    )
    redelivered = (
        previous["status"] == Document.Status.PROCESSING and previous["claim_id"] == claim_id
    )
    with transaction.atomic():
        if not Document.objects.filter(claimable, pk=document_id).update(
            **_claim_fields(claim_id, now)
        ):
            return []
        if redelivered:
            _release_orphans(claim_id=claim_id, keep=document_id, now=now)
        lead = Document.objects.get(pk=document_id)
        if lead.attempts > settings.PARLEY_INGEST_MAX_ATTEMPTS:
            crashed = previous["status"] == Document.Status.PROCESSING
            cause = (
                "the worker stopped mid-document (killed, or out of memory)"
                if crashed
                else previous["error"]
            )
            message = f"Gave up after {lead.attempts - 1} attempts: {cause or 'unknown cause'}."
            code = "worker_lost" if crashed else "gave_up"
            document_fail(document_id=document_id, claim_id=claim_id, code=code, message=message)
            return []
        mates = (
            _claim_mates(lead=lead, claim_id=claim_id, limit=batch_limit - 1, now=now)
            if batch_limit > 1
            else []
        )
    return [lead, *mates]


def _claimable_now(previous: Mapping[str, Any], *, claim_id: str, now: datetime) -> bool:
    if previous["status"] == Document.Status.PENDING:
        return True
    if previous["status"] != Document.Status.PROCESSING:
        return False
    stale = now - timedelta(seconds=settings.PARLEY_INGEST_STUCK_AFTER)
    return (
        previous["claim_id"] == claim_id
        or previous["heartbeat_at"] is None
        or previous["heartbeat_at"] < stale
    )


def _claim_fields(claim_id: str, now: object) -> dict[str, Any]:
    return {
        "status": Document.Status.PROCESSING,
        "claim_id": claim_id,
        "attempts": F("attempts") + 1,
        "progress": 0,
        "started_at": now,
        "heartbeat_at": now,
        "error": "",
        "error_code": "",
    }


def _claim_mates(*, lead: Document, claim_id: str, limit: int, now: object) -> list[Document]:
    """Fresh pending documents (never tried since queued), oldest first, skipping rows other workers are claiming.

    A batch takes at most half of the documents waiting, so the other workers get their share
    and none sits idle while one finishes a long batch at the end of a bulk upload.
    """
    if lead.attempts != 1 or limit <= 0:
        return []  # a retry runs alone
    candidates = list(
        Document.objects.select_for_update(skip_locked=True)
        .filter(status=Document.Status.PENDING, attempts=0, size_bytes__lte=BATCH_MAX_BYTES)
        .exclude(pk=lead.pk)
        .order_by("queued_at")
        .values_list("pk", "size_bytes")[: 2 * limit]
    )
    budget = BATCH_MAX_BYTES - lead.size_bytes
    chosen = []
    for pk, size in candidates[: min(limit, -(-len(candidates) // 2))]:
        if size > budget:
            break
        chosen.append(pk)
        budget -= size
    if not chosen:
        return []
    Document.objects.filter(pk__in=chosen, status=Document.Status.PENDING).update(
        **_claim_fields(claim_id, now)
    )
    return list(Document.objects.filter(pk__in=chosen, claim_id=claim_id).order_by("queued_at"))


def _release_orphans(*, claim_id: str, keep: str, now: object) -> None:
    """Batch mates a dead delivery of this message had claimed go back to pending, each with a message of its own."""
    orphans = Document.objects.filter(status=Document.Status.PROCESSING, claim_id=claim_id).exclude(
        pk=keep
    )
    orphan_ids = [str(pk) for pk in orphans.values_list("pk", flat=True)]
    Document.objects.filter(pk__in=orphan_ids, claim_id=claim_id).update(
        status=Document.Status.PENDING, claim_id="", progress=0, queued_at=now
    )
    for orphan_id in orphan_ids:
        transaction.on_commit(functools.partial(document_ingest_enqueue, document_id=orphan_id))


def documents_progress_report(*, claim_id: str, percents: dict[str, int]) -> int:
    """Set each document's progress in one UPDATE; it doubles as the heartbeat. Returns how many are still ours.

    One WHEN per distinct percent, not per document: a batch's documents share a few values, and
    Django's compiling of a CASE grows with its branches."""
    by_percent: dict[int, list[str]] = {}
    for document_id, percent in percents.items():
        by_percent.setdefault(percent, []).append(document_id)
    cases = [When(pk__in=ids, then=Value(percent)) for percent, ids in by_percent.items()]
    return Document.objects.filter(
        pk__in=list(percents), claim_id=claim_id, status=Document.Status.PROCESSING
    ).update(progress=Case(*cases, output_field=IntegerField()), heartbeat_at=timezone.now())


def document_finish_unchanged(*, document_id: str, claim_id: str) -> None:
    Document.objects.filter(pk=document_id, claim_id=claim_id).update(
        status=Document.Status.READY,
        progress=100,
        claim_id="",
        attempts=0,
        finished_at=timezone.now(),
    )


def document_fail(*, document_id: str, claim_id: str, code: str, message: str) -> None:
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


def document_release(*, document: Document, claim_id: str, reason: str) -> bool:
    """Give the claim back before a retry (True), or fail the document once its attempts are spent (False)."""
    if document.attempts >= settings.PARLEY_INGEST_MAX_ATTEMPTS:
        message = f"Gave up after {document.attempts} attempts: {reason}"
        document_fail(
            document_id=str(document.pk), claim_id=claim_id, code="gave_up", message=message
        )
        return False
    try:
        Document.objects.filter(pk=document.pk, claim_id=claim_id).update(
            status=Document.Status.PENDING,
            claim_id="",
            progress=0,
            error=f"Retrying: {reason}"[:2000],
        )
    except DatabaseError:
        logger.warning("could not release document %s; the stale-claim sweep will", document.pk)
    return True
