"""Celery tasks of the connectors: thin, they take ids and call a service."""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from django.utils import timezone

from connectors.models import ChannelThread, InboundEvent
from connectors.services import (
    conversation_outbox_fill,
    inbound_process,
    outbox_due_threads,
    thread_deliver,
)

# An accepted message still unprocessed this long after it came (its worker lost) is processed again.
INBOUND_STALE = timedelta(minutes=2)


@shared_task(name="connectors.inbound_process", acks_late=True)
def inbound_process_task(event_id: int) -> str:
    """Idempotent: the entry point replays a turn it answered (the platform's message id)."""
    return inbound_process(event_id=event_id)


@shared_task(name="connectors.conversation_relay", acks_late=True)
def conversation_relay_task(conversation_id: str) -> str:
    """Asked by the handoff app (by this name: conversations.channels) after an owner move, an agent's
    or system message, or a bot turn in a conversation once handed off."""
    conversation_outbox_fill(conversation_id=conversation_id)
    thread_id = (
        ChannelThread.objects.filter(conversation_id=conversation_id)
        .values_list("pk", flat=True)
        .first()
    )
    return thread_deliver(thread_id=thread_id).outcome if thread_id else "no_thread"


@shared_task(name="connectors.thread_deliver", acks_late=True)
def thread_deliver_task(thread_id: int) -> str:
    return thread_deliver(thread_id=thread_id).outcome


@shared_task(name="connectors.outbox_sweep")
def outbox_sweep() -> int:
    """Beat's backstop: due rows a lost task left, and messages whose processing was lost."""
    for thread_id in outbox_due_threads():
        thread_deliver_task.delay(thread_id)
    stale = InboundEvent.objects.filter(
        status=InboundEvent.Status.RECEIVED, received_at__lt=timezone.now() - INBOUND_STALE
    ).values_list("pk", flat=True)[:200]
    for event_id in stale:
        inbound_process_task.delay(event_id)
    return len(stale)
