"""Celery tasks of the connectors: thin, they take ids and call a service."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.utils import timezone

from connectors.errors import MailboxUnavailable
from connectors.models import ChannelThread, InboundEvent
from connectors.queue import INBOUND_PROCESS_TASK, THREAD_DELIVER_TASK
from connectors.services import (
    channel_imap_poll,
    conversation_outbox_fill,
    imap_channels,
    inbound_process,
    outbox_due_threads,
    thread_deliver,
)
from core.typed_tasks import task

logger = logging.getLogger(__name__)
# An accepted message still unprocessed this long after it came (its worker lost) is processed again.
INBOUND_STALE = timedelta(minutes=2)


@task(name=INBOUND_PROCESS_TASK, acks_late=True)
def inbound_process_task(event_id: int) -> str:
    """Idempotent: the entry point replays a turn it answered (the platform's message id)."""
    return inbound_process(event_id=event_id)


@task(name="connectors.conversation_relay", acks_late=True)
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


@task(name=THREAD_DELIVER_TASK, acks_late=True)
def thread_deliver_task(thread_id: int) -> str:
    return thread_deliver(thread_id=thread_id).outcome


@task(name="connectors.outbox_sweep")
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


@task(name="connectors.imap_poll")
def imap_poll() -> int:
    """Beat's: one poll task per e-mail channel with a mailbox."""
    channels = imap_channels()
    for channel_id in channels:
        channel_imap_poll_task.delay(channel_id)
    return len(channels)


@task(name="connectors.channel_imap_poll")
def channel_imap_poll_task(channel_id: str) -> int:
    """A mailbox that cannot be read is logged and polled again at the next beat (nothing is lost:
    its messages stay unseen)."""
    try:
        return channel_imap_poll(channel_id=channel_id)
    except MailboxUnavailable as error:
        logger.warning("IMAP poll failed: %s", error.message)
        return 0
