"""The outbox: what the visitor of a platform thread should read, one row per source (a bot turn, an
agent's or system message, an owner move, an attachment's acknowledgement), found in the database
(`conversation_outbox_fill`: asked again, it adds nothing twice), and sent in order (`thread_deliver`).

A platform answering 429 or 5xx (or not answering) leaves the row pending with its next attempt time
(the platform's Retry-After, else exponential backoff with jitter): it holds back the thread's later
rows, so the visitor reads them in order, and nothing is dropped. A permanent refusal (a 4xx other
than 429) fails that row, recorded, and the thread goes on. Rows are rendered when sent, from the
stored rows, so a retry sends exactly what the first attempt would have.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from connectors.errors import DeliveryError
from connectors.models import ChannelThread, InboundEvent, OutboxMessage
from connectors.notices import notice
from connectors.platforms import connector_for
from connectors.platforms.base import Outgoing, Source
from connectors.queue import thread_deliver_enqueue
from conversations.models import Conversation, Turn
from conversations.pipeline.results import turn_citations
from handoff.models import Message, OwnerEvent
from handoff.names import agent_display_name

Owner = Conversation.Owner
BACKOFF_BASE_SECONDS = 2.0
BACKOFF_MAX_SECONDS = 3600.0
PASS_MAX_ROWS = 50  # one delivery pass; the rest in the next task


@dataclass(frozen=True)
class DeliveryPass:
    """``outcome``: "idle" (nothing pending), "sent", "waiting" (a row waits for ``retry_at``)."""

    outcome: str
    sent: int = 0
    retry_at: datetime | None = None


def conversation_outbox_fill(*, conversation_id: uuid.UUID | str) -> int:
    """Queue every source of the conversation that has no row yet; returns how many were added."""
    thread = ChannelThread.objects.filter(conversation_id=conversation_id).first()
    if thread is None:
        return 0
    sources: list[tuple[str, datetime]] = []
    turns = Turn.objects.filter(conversation_id=conversation_id, completed_at__isnull=False)
    sources += [
        (f"turn:{pk}", at) for pk, at in turns.values_list("pk", "completed_at") if at is not None
    ]
    messages = Message.objects.filter(conversation_id=conversation_id).exclude(
        role=Message.Role.VISITOR
    )
    sources += [(f"message:{pk}", at) for pk, at in messages.values_list("pk", "created_at")]
    events = OwnerEvent.objects.filter(conversation_id=conversation_id)
    sources += [(f"owner:{pk}", at) for pk, at in events.values_list("pk", "created_at")]
    with_files = thread.inbound.exclude(attachments=[])
    sources += [(f"files:{pk}", at) for pk, at in with_files.values_list("pk", "received_at")]
    known = set(thread.outbox.values_list("source_key", flat=True))
    rows = [
        OutboxMessage(thread=thread, source_key=key, source_at=at)
        for key, at in sources
        if key not in known
    ]
    OutboxMessage.objects.bulk_create(rows, ignore_conflicts=True)
    return len(rows)


def thread_deliver(*, thread_id: int) -> DeliveryPass:
    """Send the thread's pending rows, oldest source first, each under the thread's row lock (so two
    workers never send one row twice, nor out of order), each committed once the platform took it."""
    sent = 0
    for _ in range(PASS_MAX_ROWS):
        with transaction.atomic():
            thread = (
                ChannelThread.objects.select_for_update(of=("self",))
                .select_related("channel__bot", "conversation")
                .filter(pk=thread_id)
                .first()
            )
            if thread is None:
                return DeliveryPass("idle", sent)
            row = thread.outbox.filter(status=OutboxMessage.Status.PENDING).first()
            if row is None:
                return DeliveryPass("idle", sent)
            now = timezone.now()
            if row.next_attempt_at is not None and row.next_attempt_at > now:
                _retry_schedule(thread_id=thread_id, at=row.next_attempt_at)
                return DeliveryPass("waiting", sent, retry_at=row.next_attempt_at)
            outcome = _row_send(thread=thread, row=row, now=now)
            if outcome == "waiting":
                assert row.next_attempt_at is not None
                _retry_schedule(thread_id=thread_id, at=row.next_attempt_at)
                return DeliveryPass("waiting", sent, retry_at=row.next_attempt_at)
            sent += outcome == "sent"
    _retry_schedule(thread_id=thread_id, at=timezone.now())  # more than one pass holds
    return DeliveryPass("sent", sent)


def _row_send(*, thread: ChannelThread, row: OutboxMessage, now: datetime) -> str:
    outgoing = outgoing_render(thread=thread, source_key=row.source_key)
    if outgoing is None:
        row.status = OutboxMessage.Status.SKIPPED
        row.save(update_fields=["status"])
        return "skipped"
    connector = connector_for(thread.channel)
    parts = [part for part in row.platform_ref.split("\n") if part]
    try:
        refs = connector.send(
            thread=thread, outgoing=outgoing, parts=parts, replace_ref=_streamed_ref(row, thread)
        )
    except DeliveryError as error:
        row.attempts += 1
        row.last_error = error.message[:2000]
        row.platform_ref = "\n".join(error.parts)
        if error.transient:
            row.next_attempt_at = now + timedelta(seconds=_wait(error, attempts=row.attempts))
            row.save(update_fields=["attempts", "last_error", "platform_ref", "next_attempt_at"])
            return "waiting"
        row.status = OutboxMessage.Status.FAILED
        row.save(update_fields=["attempts", "last_error", "platform_ref", "status"])
        return "failed"
    row.status, row.sent_at = OutboxMessage.Status.SENT, timezone.now()
    row.platform_ref, row.attempts = "\n".join(refs), row.attempts + 1
    row.save(update_fields=["status", "sent_at", "platform_ref", "attempts"])
    return "sent"


def _wait(error: DeliveryError, *, attempts: int) -> float:
    """The platform's Retry-After when it gave one, else backoff with jitter; at most an hour."""
    if error.retry_after is not None:
        return min(BACKOFF_MAX_SECONDS, max(0.0, error.retry_after))
    ceiling = min(BACKOFF_MAX_SECONDS, BACKOFF_BASE_SECONDS * 2 ** (attempts - 1))
    return random.uniform(ceiling / 2, ceiling)  # noqa: S311 (jitter, not cryptography)


def _streamed_ref(row: OutboxMessage, thread: ChannelThread) -> str:
    """A bot turn streamed into a platform message: that message is edited into the final answer."""
    if not row.source_key.startswith("turn:"):
        return ""
    client_id = Turn.objects.filter(pk=row.source_key[5:]).values_list(
        "client_message_id", flat=True
    )
    ref = (
        InboundEvent.objects.filter(thread=thread, client_message_id__in=client_id)
        .exclude(reply_ref="")
        .values_list("reply_ref", flat=True)
        .first()
    )
    return ref or ""


def _retry_schedule(*, thread_id: int, at: datetime) -> None:
    countdown = max(0.0, (at - timezone.now()).total_seconds())
    transaction.on_commit(lambda: thread_deliver_enqueue(thread_id=thread_id, countdown=countdown))


def outgoing_render(*, thread: ChannelThread, source_key: str) -> Outgoing | None:
    """What a row's source reads as on a platform; None when there is nothing to show."""
    kind, _, key = source_key.partition(":")
    locale = thread.channel.bot.locale or "en"
    if kind == "turn":
        turn = Turn.objects.filter(pk=key).first()
        if turn is None or not turn.reply_text.strip():
            return None
        sources = tuple(
            Source(n=c["n"], title=c["title"] or "", page=c.get("page_number"))
            for c in turn_citations(turn=turn)
        )
        return Outgoing(text=turn.reply_text, kind="answer", locale=locale, sources=sources)
    if kind == "message":
        message = Message.objects.select_related("author__agent_profile").filter(pk=key).first()
        if message is None or not message.text.strip():
            return None
        author = agent_display_name(message.author, locale=locale)
        role = "agent" if message.role == Message.Role.AGENT else "notice"
        return Outgoing(text=message.text, kind=role, locale=locale, author=author)
    if kind == "owner":
        event = OwnerEvent.objects.select_related("agent__agent_profile").filter(pk=key).first()
        text = _owner_notice(event, locale=locale) if event else ""
        return Outgoing(text=text, kind="notice", locale=locale) if text else None
    if kind == "files":
        inbound = InboundEvent.objects.filter(pk=key).first()
        return _files_notice(inbound, locale=locale) if inbound else None
    return None


def _owner_notice(event: OwnerEvent, *, locale: str) -> str:
    if event.to_owner == Owner.WAITING_AGENT:
        return notice("waiting", locale=locale)
    if event.to_owner == Owner.AGENT:
        return notice("joined", locale=locale, name=agent_display_name(event.agent, locale=locale))
    if event.to_owner == Owner.BOT and event.from_owner == Owner.AGENT:
        return notice("back_to_bot", locale=locale)
    if event.to_owner == Owner.RESOLVED:
        return notice("resolved", locale=locale)
    return ""


def _files_notice(inbound: InboundEvent, *, locale: str) -> Outgoing | None:
    taken = [row["name"] for row in inbound.attachments if not row.get("ignored")]
    ignored = [row["name"] for row in inbound.attachments if row.get("ignored")]
    texts = []
    if taken:
        texts.append(notice("attachment_taken", locale=locale, names=", ".join(taken)))
    if ignored:
        texts.append(notice("attachment_ignored", locale=locale, names=", ".join(ignored)))
    return Outgoing(text=" ".join(texts), kind="notice", locale=locale) if texts else None


def outbox_due_threads() -> list[int]:
    """Threads with a pending row that is due (a lost task, a Retry-After past), for the sweep."""
    due = OutboxMessage.objects.filter(status=OutboxMessage.Status.PENDING).filter(
        Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lte=timezone.now())
    )
    return sorted(set(due.values_list("thread_id", flat=True)))
