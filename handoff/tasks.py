"""Celery tasks of the handoff: thin, they take ids and call a service."""

from __future__ import annotations

import uuid

from core.typed_tasks import task
from handoff.queue import PENDING_ANSWER_TASK, TIMEOUT_CHECK_TASK
from handoff.services import handoff_pending_answer, handoff_timeout


@task(name=TIMEOUT_CHECK_TASK, acks_late=True)
def handoff_timeout_check(handoff_id: str) -> bool:
    return handoff_timeout(handoff_id=uuid.UUID(handoff_id))


@task(name=PENDING_ANSWER_TASK, acks_late=True)
def handoff_pending_answer_task(handoff_id: str) -> str | None:
    """Idempotent: a second run replays the turn the first one recorded (its client message id)."""
    received = handoff_pending_answer(handoff_id=uuid.UUID(handoff_id))
    return str(received.turn.pk) if received and received.turn else None
