"""Thin Celery tasks: run (or resume) one sync by id; dispatch the scheduled ones (beat)."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.conf import settings


@shared_task(
    bind=True,
    name="sources.sync_run",
    acks_late=True,
    reject_on_worker_lost=True,  # a worker killed mid-crawl: the message comes back, the sync resumes
    soft_time_limit=settings.PARLEY_SOURCES_SYNC_BUDGET_SECONDS + 300,
    time_limit=settings.PARLEY_SOURCES_SYNC_BUDGET_SECONDS + 360,
)
def sync_run_task(self: Any, sync_id: str) -> str:
    """Idempotent: the claim is this message's id, so its redelivery resumes the stored frontier."""
    from sources.sync.runner import sync_run

    return sync_run(sync_id=sync_id, claim_id=self.request.id)


@shared_task(name="sources.dispatch_due")
def sources_dispatch_due_task() -> int:
    from sources.services import sources_due_dispatch

    return sources_due_dispatch()
