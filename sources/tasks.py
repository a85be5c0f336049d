"""Thin Celery tasks: run (or resume) one sync by id; dispatch the scheduled ones (beat)."""

from __future__ import annotations

from django.conf import settings

from core.typed_tasks import RunningTask, bound_task, task
from sources.queue import DISPATCH_DUE_TASK, SYNC_RUN_TASK


@bound_task(
    name=SYNC_RUN_TASK,
    acks_late=True,
    reject_on_worker_lost=True,  # a worker killed mid-crawl: the message comes back, the sync resumes
    soft_time_limit=settings.PARLEY_SOURCES_SYNC_BUDGET_SECONDS + 300,
    time_limit=settings.PARLEY_SOURCES_SYNC_BUDGET_SECONDS + 360,
)
def sync_run_task(self: RunningTask, sync_id: str) -> str:
    """Idempotent: the claim is this message's id, so its redelivery resumes the stored frontier."""
    from sources.sync.runner import sync_run

    return sync_run(sync_id=sync_id, claim_id=self.request.id)


@task(name=DISPATCH_DUE_TASK)
def sources_dispatch_due_task() -> int:
    from sources.services import sources_due_dispatch

    return sources_due_dispatch()
