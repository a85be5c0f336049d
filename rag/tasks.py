"""Thin Celery tasks: ingest a document by id, with a batch of fresh pending ones (retrying transient errors with
backoff), sweep stuck documents, recalibrate a workspace's fusion; a worker loads what ingestion needs before
its pool forks."""

from __future__ import annotations

import random

from celery.signals import worker_init, worker_ready

from core.typed_tasks import RunningTask, bound_task, task
from rag.errors import TransientIngestError
from rag.queue import (
    CHUNKS_MULTILINGUAL_BACKFILL_TASK,
    CHUNKS_PASSAGES_BACKFILL_TASK,
    DOCUMENT_INGEST_TASK,
    WORKSPACE_FUSION_CALIBRATE_TASK,
)


@bound_task(
    name=DOCUMENT_INGEST_TASK,
    acks_late=True,
    reject_on_worker_lost=True,
    max_retries=None,
)
def document_ingest_task(self: RunningTask, document_id: str) -> str:
    from django.conf import settings

    from rag.ingestion import document_ingest

    try:
        batch_limit = settings.PARLEY_INGEST_BATCH_DOCUMENTS
        return document_ingest(
            document_id=document_id, claim_id=self.request.id, batch_limit=batch_limit
        )
    except TransientIngestError as exc:
        # The service released the claim and bounds the attempts; back off exponentially, with jitter.
        countdown = min(300, 2 ** (self.request.retries + 1)) + random.uniform(0, 1)  # noqa: S311
        raise self.retry(exc=exc, countdown=countdown) from exc


@task(name=WORKSPACE_FUSION_CALIBRATE_TASK, acks_late=True, soft_time_limit=600, time_limit=660)
def workspace_fusion_calibrate_task(workspace_id: str) -> str:
    """Idempotent: the same chunks give the same pairs and the same choice (the service releases the
    queued mark on any error, so a failed run may be asked for again)."""
    from rag.retrieval.calibration.service import workspace_fusion_calibrate

    calibrated = workspace_fusion_calibrate(workspace_id=workspace_id)
    return calibrated.method if calibrated is not None else "too_few_pairs"


@task(name=CHUNKS_MULTILINGUAL_BACKFILL_TASK, acks_late=True)
def chunks_multilingual_backfill_task(workspace_id: str) -> int:
    """Idempotent: only chunks still without the workspace's multilingual vector are embedded. The
    pending mark is dropped when it ends, and a finished backfill asks for a recalibration (the
    multilingual side's candidates changed)."""
    from django.core.cache import cache

    from rag.embeddings.backfill import chunks_multilingual_backfill
    from rag.retrieval.calibration.service import workspace_fusion_request

    try:
        done = chunks_multilingual_backfill(workspace_id=workspace_id)
    finally:
        cache.delete(f"parley:multi-backfill:{workspace_id}")
    if done:
        workspace_fusion_request(workspace_id=workspace_id)
    return done


@task(name="rag.multilingual_backfill_sweep")
def multilingual_backfill_sweep_task() -> int:
    from rag.embeddings.backfill import multilingual_backfill_sweep

    return multilingual_backfill_sweep()


@task(name=CHUNKS_PASSAGES_BACKFILL_TASK, acks_late=True, soft_time_limit=1800, time_limit=1860)
def chunks_passages_backfill_task(workspace_id: str) -> int:
    """Idempotent: only chunks still without passages for the workspace's models are made; the
    pending mark is dropped when it ends."""
    from django.core.cache import cache

    from rag.passages.backfill import chunks_passages_backfill

    try:
        return chunks_passages_backfill(workspace_id=workspace_id)
    finally:
        cache.delete(f"parley:passages-backfill:{workspace_id}")


@task(name="rag.passages_backfill_sweep")
def passages_backfill_sweep_task() -> int:
    from rag.passages.backfill import passages_backfill_sweep

    return passages_backfill_sweep()


# An HNSW build of a 500k-chunk workspace takes many minutes on 2 cores (bench/scale): far past the
# default task limit, which would cut every attempt short. It occupies one worker process meanwhile.
@task(name="rag.workspace_indexes_sync", soft_time_limit=3 * 3600, time_limit=3 * 3600 + 60)
def workspace_indexes_sync_task() -> int:
    """Large workspaces' own HNSW indexes (rag.workspace_indexes); a build cut short leaves an
    invalid index, which the next run drops and builds again."""
    from rag.workspace_indexes import workspace_indexes_sync

    result = workspace_indexes_sync()
    return len(result.created) + len(result.dropped)


@task(name="rag.documents_reclaim_stuck")
def documents_reclaim_stuck_task() -> int:
    from rag.services import documents_reclaim_stuck

    return documents_reclaim_stuck()


def _reclaim_on_worker_start(**_: object) -> None:
    """A worker that starts after a crash picks up the documents the crash left behind."""
    documents_reclaim_stuck_task.delay()
    multilingual_backfill_sweep_task.delay()  # chunks stored before the multilingual side existed


def ingestion_preload(**_: object) -> None:
    """Import the pipeline and load the language identifier once, before the pool forks: every pool process shares
    them instead of loading its own copy in its first ingestion task (docs/decisions/first-ten-minutes.md)."""
    import rag.ingestion  # noqa: F401
    from textmodels.language import language_identifier_load

    language_identifier_load()


# Connected by a call rather than as decorators: Celery's signals are untyped, and a decorator of theirs
# would leave the receivers untyped too.
worker_ready.connect(_reclaim_on_worker_start)
worker_init.connect(ingestion_preload)
