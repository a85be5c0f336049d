"""Celery tasks of the handoff: thin, they take ids and call a service."""

from __future__ import annotations

import uuid

from celery import shared_task

from handoff.services import handoff_timeout


@shared_task(name="handoff.timeout_check", acks_late=True)
def handoff_timeout_check(handoff_id: str) -> bool:
    return handoff_timeout(handoff_id=uuid.UUID(handoff_id))
