"""Celery tasks of the conversations app: thin, they take ids and call a service."""

from __future__ import annotations

from conversations.curated_embeddings import REEMBED_TASK, curated_answers_reembed
from core.typed_tasks import task


@task(name=REEMBED_TASK, acks_late=True)
def curated_answers_reembed_task(bot_id: str) -> int:
    """Idempotent: a second run finds every curated answer already in the workspace's model."""
    return curated_answers_reembed(bot_id=bot_id)
