"""Ingestion's one call into calibration: the chunks of documents that just became ready count as changes."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from django.db import DatabaseError
from django.db.models import Q, Sum

from rag.models import Document
from rag.retrieval.calibration.service import workspace_fusion_change_record

logger = logging.getLogger(__name__)


def fusion_changes_record(*, document_ids: Sequence[str]) -> None:
    """After the chunk swaps committed: count each workspace's new chunks (one query), maybe queue a run.
    `document_ids` are the documents that settled: the ready ones' chunks count as changes, a failed one
    counts none but is asked about too, since a calibration deferred while it was in flight waits on it.

    The documents are settled whatever happens here, so a failure is logged, never raised into ingestion."""
    totals = (
        Document.objects.filter(pk__in=document_ids, conversation__isnull=True)
        .values("workspace_id")
        .annotate(chunk_total=Sum("chunk_count", filter=Q(status=Document.Status.READY), default=0))
    )
    for row in totals:
        try:
            workspace_fusion_change_record(
                workspace_id=row["workspace_id"], chunks=row["chunk_total"]
            )
        except DatabaseError:
            logger.exception("could not record fusion changes of workspace %s", row["workspace_id"])
