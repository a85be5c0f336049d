"""Thin Celery tasks of the insights app: ids in, one service call (each safe to deliver twice)."""

from __future__ import annotations

import random

from core.typed_tasks import RunningTask, bound_task, task
from insights.queue import EVALUATION_RUN_EXECUTE_TASK, GAP_CLUSTERING_COMPUTE_TASK


@task(name=GAP_CLUSTERING_COMPUTE_TASK, acks_late=True)
def gap_clustering_compute_task(clustering_id: str) -> bool:
    from insights.services.gaps import gap_clustering_compute

    return gap_clustering_compute(clustering_id=clustering_id)


@task(name="insights.turn_rollups_refresh", acks_late=True)
def turn_rollups_refresh_task() -> int:
    from insights.services.rollups import turn_rollups_refresh

    return turn_rollups_refresh()


@bound_task(name=EVALUATION_RUN_EXECUTE_TASK, acks_late=True, max_retries=180)
def evaluation_run_execute_task(self: RunningTask, run_id: str) -> str:
    from insights.services.runs import (
        WAIT_FOR_DOCUMENTS_SECONDS,
        DocumentsPending,
        evaluation_run_execute,
        evaluation_run_fail,
    )

    try:
        return evaluation_run_execute(run_id=run_id)
    except DocumentsPending as exc:
        if self.max_retries is not None and self.request.retries >= self.max_retries:
            evaluation_run_fail(run_id=run_id, code="documents_not_ready", message=str(exc))
            return "failed"
        # Ingestion is still running (the demo's first run is queued with its documents): waited for
        # up to max_retries × WAIT_FOR_DOCUMENTS_SECONDS (half an hour: OCR and media on a first start).
        countdown = WAIT_FOR_DOCUMENTS_SECONDS + random.uniform(0, 1)  # noqa: S311 - jitter
        raise self.retry(exc=exc, countdown=countdown) from exc


@task(name="insights.faq_candidates_collect", acks_late=True)
def faq_candidates_collect_task() -> int:
    from insights.services.knowledge import faq_candidates_collect

    return faq_candidates_collect()


@task(name="insights.gap_clusters_coverage_refresh", acks_late=True)
def gap_clusters_coverage_refresh_task(bot_id: str) -> int:
    from insights.services.gaps import gap_clusters_coverage_refresh

    return gap_clusters_coverage_refresh(bot_id=bot_id)
