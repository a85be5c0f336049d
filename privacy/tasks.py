"""Thin Celery tasks of the privacy app: an erasure run (retried until done), the sweep that resumes
unfinished ones, and the retention sweep."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

from django.utils import timezone

from core.typed_tasks import task
from privacy.services.erasure import visitor_erasure_execute, visitor_erasures_unfinished
from privacy.services.retention import retention_apply
from privacy.subjects import VisitorNotFound

# An erasure untouched this long is taken up again by the sweep (a run in progress updates its row
# after every step).
RESUME_AFTER = timedelta(minutes=2)


@task(
    name="privacy.visitor_erasure_execute",
    autoretry_for=(Exception,),
    retry_backoff=5,
    retry_backoff_max=300,
    retry_jitter=True,
    max_retries=8,
    acks_late=True,
)
def visitor_erasure_execute_task(erasure_id: str) -> str:
    """Run or resume one erasure (idempotent: its steps find nothing left to do the second time);
    any failure is retried with backoff, the row saying why meanwhile."""
    try:
        return visitor_erasure_execute(erasure_id=erasure_id).status
    except VisitorNotFound:
        return "missing"  # permanent: retrying cannot bring the row back


@task(name="privacy.erasures_resume")
def erasures_resume() -> int:
    """Queue every erasure a failure or a killed process left unfinished; the count queued."""
    ids = visitor_erasures_unfinished(older_than=timezone.now() - RESUME_AFTER)
    for erasure_id in ids:
        visitor_erasure_execute_task.delay(str(erasure_id))
    return len(ids)


@task(name="privacy.retention_apply")
def retention_apply_task() -> dict[str, int]:
    """Delete what every workspace's retention lets go; what was deleted, by kind."""
    return dataclasses.asdict(retention_apply())
