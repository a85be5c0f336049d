"""A platform's message, accepted (stored before the platform gets its 200, so its retries find it)
and answered by a worker through the one entry point, `handoff.services.visitor_message_receive`,
with the platform's message id as the client message id."""

from __future__ import annotations

import hashlib
import logging
from typing import Any

from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction
from django.utils import timezone

from connectors.errors import InboundInvalid
from connectors.models import Channel, ChannelThread, InboundEvent, OutboxMessage
from connectors.platforms import connector_for
from connectors.platforms.base import Attachment, InboundMessage
from connectors.queue import inbound_process_enqueue
from connectors.services.outbox import conversation_outbox_fill, thread_deliver
from conversations.models import Conversation
from handoff.services import visitor_message_receive
from rag.services import document_create

logger = logging.getLogger(__name__)
ATTACHMENT_MAX_BYTES = 20 * 1024 * 1024


def client_message_id_for(*, channel: Channel, message_id: str) -> str:
    """The platform's message id as a turn's client message id (at most 100 characters: long ids,
    an e-mail's Message-ID, are hashed). Never contains '/', which Parley's own turns use."""
    raw = f"{channel.kind}:{message_id}".replace("/", "_")
    if len(raw) <= 100:
        return raw
    return f"{channel.kind}:sha256:{hashlib.sha256(message_id.encode()).hexdigest()}"


def inbound_accept(*, channel: Channel, message: InboundMessage) -> InboundEvent | None:
    """Store the message (and, for a new thread, its conversation); its processing is queued after the
    commit. None when it was seen before (a platform's retry: answered once) or when it belongs to no
    thread the connector answers."""
    with transaction.atomic():
        existing = InboundEvent.objects.filter(channel=channel, message_id=message.message_id)
        if existing.exists():
            return None
        thread = _thread_for(channel=channel, message=message)
        if thread is None:
            return None
        if message.address and thread.address != {**thread.address, **message.address}:
            thread.address = {**thread.address, **message.address}
            thread.save(update_fields=["address"])
        # The visitor wrote: the platform is there (and WhatsApp's window open): what waits goes now.
        thread.outbox.filter(status=OutboxMessage.Status.PENDING).update(next_attempt_at=None)
        try:
            with transaction.atomic():
                event = InboundEvent.objects.create(
                    channel=channel,
                    thread=thread,
                    message_id=message.message_id,
                    client_message_id=client_message_id_for(
                        channel=channel, message_id=message.message_id
                    ),
                    text=message.text,
                    attachments=_attachments_stored(
                        channel=channel, thread=thread, attachments=message.attachments
                    ),
                )
        except IntegrityError:  # the same delivery, concurrently
            return None
        event_id = event.pk
        transaction.on_commit(lambda: inbound_process_enqueue(event_id=event_id))
    return event


def _thread_for(*, channel: Channel, message: InboundMessage) -> ChannelThread | None:
    threads = ChannelThread.objects.select_related("conversation").filter(channel=channel)
    candidates = threads.filter(thread_key__in=[message.thread_key, *message.thread_refs])
    if message.thread_ids:
        candidates = candidates | threads.filter(pk__in=message.thread_ids)
    if message.same_visitor_only:
        candidates = candidates.filter(conversation__visitor_id=message.visitor_id[:64])
    found = candidates.order_by("created_at").first()
    if found is not None or not message.new_thread_allowed:
        return found
    key = message.thread_key
    if threads.filter(thread_key=key).exists():  # another visitor's thread: a new one of its own
        key = f"{key}#{message.message_id}"[:300]
    try:
        with transaction.atomic():
            conversation = Conversation.objects.create(
                bot=channel.bot, channel=channel.kind, visitor_id=message.visitor_id[:64]
            )
            return ChannelThread.objects.create(
                channel=channel, conversation=conversation, thread_key=key, address=message.address
            )
    except IntegrityError:  # a concurrent delivery created it
        return threads.get(thread_key=key)


def _attachments_stored(
    *, channel: Channel, thread: ChannelThread, attachments: tuple[Attachment, ...]
) -> list[dict[str, Any]]:
    """What the event records of its attachments. Bytes the request carries (e-mail) become documents
    of the conversation now when the channel accepts attachments; a URL (Slack) is fetched by the worker."""
    stored: list[dict[str, Any]] = []
    for attachment in attachments:
        row: dict[str, Any] = {"name": attachment.name, "content_type": attachment.content_type}
        if not channel.accept_attachments:
            row["ignored"] = True
        elif attachment.content is not None:
            row["document_id"] = _document_add(
                thread=thread, name=attachment.name, content=attachment.content
            )
        else:
            row["url"] = attachment.url
        stored.append(row)
    return stored


def _document_add(*, thread: ChannelThread, name: str, content: bytes) -> str:
    if len(content) > ATTACHMENT_MAX_BYTES:
        raise InboundInvalid(f"{name} is larger than {ATTACHMENT_MAX_BYTES} bytes")
    document = document_create(
        workspace=thread.channel.bot.workspace,
        file=ContentFile(content, name=name),
        conversation_id=thread.conversation_id,
    )
    return str(document.pk)


def inbound_process(*, event_id: int) -> str:
    """Answer (or forward to the agent) one accepted message, then send what the visitor should read.
    Safe to run again: the entry point is idempotent on the client message id."""
    event = (
        InboundEvent.objects.select_related(
            "channel__bot__workspace", "thread__conversation", "thread__channel__bot"
        )
        .filter(pk=event_id)
        .first()
    )
    if event is None:
        return "gone"
    thread, connector = event.thread, connector_for(event.channel)
    _attachments_fetch(event=event)
    if event.attachments:  # the acknowledgement before the answer (which may stream first)
        conversation_outbox_fill(conversation_id=thread.conversation_id)
        thread_deliver(thread_id=thread.pk)
    if event.text.strip():
        visitor_message_receive(
            conversation_id=thread.conversation_id,
            client_message_id=event.client_message_id,
            text=event.text,
            emitter=connector.stream_emitter(thread=thread, event=event),
        )
    InboundEvent.objects.filter(pk=event.pk).update(
        status=InboundEvent.Status.DONE, processed_at=timezone.now()
    )
    conversation_outbox_fill(conversation_id=thread.conversation_id)
    return thread_deliver(thread_id=thread.pk).outcome


def _attachments_fetch(*, event: InboundEvent) -> None:
    """The worker's part of the attachments: files the platform holds (Slack) fetched and added."""
    pending = [row for row in event.attachments if row.get("url") and "document_id" not in row]
    if not pending:
        return
    connector = connector_for(event.channel)
    rows = []
    for row in event.attachments:
        if row in pending:
            try:
                content = connector.attachment_fetch(
                    Attachment(name=row["name"], content_type=row["content_type"], url=row["url"])
                )
                row = {
                    **row,
                    "document_id": _document_add(
                        thread=event.thread, name=row["name"], content=content
                    ),
                }
            except (InboundInvalid, OSError) as error:
                logger.warning("attachment %s not fetched: %s", row["name"], error)
                row = {**row, "ignored": True, "error": str(error)[:200]}
        rows.append(row)
    event.attachments = rows
    event.save(update_fields=["attachments"])
