"""Calibrating a workspace's fusion and keeping it fresh: measure and store (`workspace_fusion_calibrate`),
count the chunks ingestion changes and queue a background run past a share of the workspace
(`workspace_fusion_change_record`), or on the admin's request (`workspace_fusion_request`).

A run is queued once (`queued_at`, moved by conditional UPDATEs) and after commit; the task is
idempotent: the same chunks give the same pairs, halves and choice.
"""

from __future__ import annotations

import logging
import uuid
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from core.models import Workspace
from rag.models import Chunk, Document, WorkspaceFusion
from rag.queue import workspace_fusion_calibrate_enqueue
from rag.retrieval.calibration.choose import Calibration, Measured, calibration_choose
from rag.retrieval.calibration.measure import pair_lists
from rag.retrieval.calibration.pairs import calibration_pairs
from rag.selectors import workspace_embedding_model, workspace_multilingual_model

logger = logging.getLogger(__name__)


def workspace_chunk_count(*, workspace_id: uuid.UUID | str, model_id: str) -> int:
    """The shared ready chunks a calibration samples from."""
    return Chunk.objects.filter(
        workspace_id=workspace_id,
        embedding_model=model_id,
        document__status="ready",
        document__conversation__isnull=True,
    ).count()


def workspace_fusion_calibrate(*, workspace_id: uuid.UUID | str) -> WorkspaceFusion | None:
    """Measure the fusion methods on the workspace's pairs and store the choice; None when it has too
    few pairs to measure anything (RETRIEVAL_CALIBRATION_MIN_PAIRS): the defaults then stay, and when
    the workspace was deleted before or during the run (its queued task outlives it)."""
    workspace_id = str(workspace_id)
    if not Workspace.objects.filter(pk=workspace_id).exists():
        logger.info("workspace %s is gone: nothing to calibrate", workspace_id)
        return None
    state, _ = WorkspaceFusion.objects.get_or_create(workspace_id=workspace_id)
    changed_before = state.changed_chunks
    model_id = workspace_embedding_model(workspace_id=workspace_id)
    multi_model_id = workspace_multilingual_model(workspace_id=workspace_id)
    chunk_count = workspace_chunk_count(workspace_id=workspace_id, model_id=model_id)
    try:
        pairs = calibration_pairs(workspace_id=workspace_id, model_id=model_id)
        enough = len(pairs.pairs) >= settings.RETRIEVAL_CALIBRATION_MIN_PAIRS
        result = (
            calibration_choose(
                pair_lists(
                    workspace_id=workspace_id,
                    model_id=model_id,
                    multi_model_id=multi_model_id,
                    pairs=pairs.pairs,
                )
            )
            if enough
            else None
        )
    except Exception as exc:
        WorkspaceFusion.objects.filter(workspace_id=workspace_id).update(
            queued_at=None, last_error=f"{type(exc).__name__}: {exc}"[:2000]
        )
        raise
    if result is None:
        WorkspaceFusion.objects.filter(workspace_id=workspace_id).update(
            queued_at=None,
            last_error=f"{len(pairs.pairs)} pairs, under the "
            f"{settings.RETRIEVAL_CALIBRATION_MIN_PAIRS} a calibration needs: defaults kept.",
        )
        return None
    chosen = result.chosen
    WorkspaceFusion.objects.filter(workspace_id=workspace_id).update(
        method=chosen.choice.method,
        parameters=chosen.choice.parameters(),
        recall_at_5=chosen.held_out.recall_at_5,
        mrr=chosen.held_out.mrr,
        vector_recall_at_5=result.vector.held_out.recall_at_5,
        text_recall_at_5=result.text.held_out.recall_at_5,
        multi_recall_at_5=result.multi.held_out.recall_at_5 if result.multi else 0.0,
        multilingual_model=multi_model_id,
        candidates=_candidates(result),
        pair_count=len(pairs.pairs),
        held_out_count=result.held_out_count,
        paraphrased_count=pairs.paraphrased_count,
        pair_source=pairs.source,
        pair_origins=[{"label": origin.label, "count": origin.count} for origin in pairs.origins],
        embedding_model=model_id,
        chunk_count=chunk_count,
        calibrated_at=timezone.now(),
        # changes that arrived while this ran still count towards the next run
        changed_chunks=F("changed_chunks") - changed_before,
        queued_at=None,
        last_error="",
    )
    logger.info("workspace %s fusion calibrated: %s", workspace_id, chosen.choice.label())
    # None when the workspace (and so its row) was deleted while the measurement ran.
    return WorkspaceFusion.objects.filter(workspace_id=workspace_id).first()


def workspace_fusion_change_record(*, workspace_id: uuid.UUID | str, chunks: int) -> bool:
    """Count `chunks` added or removed by ingestion; queue a recalibration (after commit) once the changes
    since the last one pass RETRIEVAL_CALIBRATION_CHANGE_SHARE of its chunks, or a first one once the
    workspace has enough chunks, and no document of it is still waiting or being ingested (the last
    one to settle asks again). True when a run was queued."""
    with transaction.atomic():
        state, _ = WorkspaceFusion.objects.select_for_update().get_or_create(
            workspace_id=workspace_id
        )
        state.changed_chunks += max(0, chunks)
        state.save(update_fields=["changed_chunks"])
        if not _due(state):
            return False
        return _queue(workspace_id=workspace_id)


def workspace_fusion_request(*, workspace_id: uuid.UUID | str) -> bool:
    """Queue a recalibration now (the admin's button); False when one is already queued."""
    with transaction.atomic():
        WorkspaceFusion.objects.get_or_create(workspace_id=workspace_id)
        return _queue(workspace_id=workspace_id)


def _due(state: WorkspaceFusion) -> bool:
    # A bulk upload calibrates once, after its last document: each run embeds and searches hundreds of
    # pairs, and a workspace growing by a fifth at a time would otherwise queue one run after another
    # while it fills (200 FAQ documents: 40 of the worker's 86 CPU seconds went to them, bench/ingest).
    if Document.objects.filter(
        workspace_id=state.workspace_id,
        conversation__isnull=True,
        status__in=(Document.Status.PENDING, Document.Status.PROCESSING),
    ).exists():
        return False
    model_id = workspace_embedding_model(workspace_id=state.workspace_id)
    multi_model_id = workspace_multilingual_model(workspace_id=state.workspace_id)
    if (
        state.calibrated_at is None
        or state.embedding_model != model_id
        or state.multilingual_model != multi_model_id
    ):
        count = workspace_chunk_count(workspace_id=state.workspace_id, model_id=model_id)
        return count >= settings.RETRIEVAL_CALIBRATION_MIN_PAIRS
    return state.changed_chunks > settings.RETRIEVAL_CALIBRATION_CHANGE_SHARE * max(
        state.chunk_count, 1
    )


def _queue(*, workspace_id: uuid.UUID | str) -> bool:
    """Mark the run queued (a conditional UPDATE: one message however many changes ask) and send it after
    commit. A mark older than the task's time limit is a lost run and may be taken again."""
    now = timezone.now()
    lost = now - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT + 60)
    free = WorkspaceFusion.objects.filter(workspace_id=workspace_id, queued_at__isnull=True)
    stale = WorkspaceFusion.objects.filter(workspace_id=workspace_id, queued_at__lt=lost)
    if not (free.update(queued_at=now) or stale.update(queued_at=now)):
        return False
    key = str(workspace_id)
    transaction.on_commit(lambda: workspace_fusion_calibrate_enqueue(workspace_id=key))
    return True


def _candidates(result: Calibration) -> list[dict[str, Any]]:
    def figures(measured: Measured) -> dict[str, Any]:
        return {
            "method": measured.choice.method,
            "label": measured.choice.label(),
            "parameters": measured.choice.parameters(),
            "fit": {"recall_at_5": measured.fit.recall_at_5, "mrr": measured.fit.mrr},
            "held_out": {
                "recall_at_5": measured.held_out.recall_at_5,
                "mrr": measured.held_out.mrr,
            },
        }

    return [figures(measured) for measured in result.candidates]
