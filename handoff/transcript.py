"""The admin's transcript of one conversation: the bot's turns (question, answer, status, sources,
confidence), the messages exchanged around a handoff and every owner change, interleaved by time.

The visitor's messages a bot turn answered after a return to the bot (``Message.answered_by``) stand
where they were sent, carrying that turn's id; the turn's own question (those messages joined) is
not listed again, so each visitor text reads once, followed by the bot's answer.

A read only (a selector); the conversation admin renders it. It lives in `handoff` because the
messages and owner events are this app's rows, and `conversations` may not import upwards.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from conversations.models import Turn
from handoff.models import Message, OwnerEvent
from handoff.names import agent_console_name
from handoff.selectors import turn_is_pending_answer

EntryKind = Literal["visitor", "bot", "agent", "system", "owner"]


@dataclass(frozen=True)
class TranscriptEntry:
    """One line of the transcript. `turn_id` is set on a turn's question and answer (their audit), and on
    the visitor's messages a bot turn answered after a return to the bot."""

    at: datetime
    kind: EntryKind
    text: str
    turn_id: uuid.UUID | None = None
    author: str = ""
    status: str = ""
    status_label: str = ""
    confidence: float | None = None
    # The titles of the documents the answer used, in retrieval order, each once.
    sources: tuple[str, ...] = field(default_factory=tuple)
    # A turn whose answer is not recorded yet (still running, or cut short).
    pending: bool = False
    # The bot answered but the visitor was shown nothing (display_answer false).
    hidden: bool = False


def conversation_transcript(*, conversation_id: uuid.UUID) -> list[TranscriptEntry]:
    """Every entry of the conversation, oldest first, in three queries whatever its length.

    A turn gives two entries: the visitor's question when it arrived and the bot's answer when it was
    recorded, so an owner change the answer caused (an escalation) follows the answer. Ties keep the
    order below (questions, answers, messages, owner changes), which is the order they are written in.
    """
    entries: list[TranscriptEntry] = []
    turns = Turn.objects.filter(conversation_id=conversation_id).order_by("created_at", "pk")
    for turn in turns:
        if not turn_is_pending_answer(turn=turn):
            entries.append(
                TranscriptEntry(
                    at=turn.created_at, kind="visitor", text=turn.user_text, turn_id=turn.pk
                )
            )
        entries.append(_answer_entry(turn))
    messages = (
        Message.objects.filter(conversation_id=conversation_id)
        .select_related("author__agent_profile")
        .order_by("created_at", "pk")
    )
    for message in messages:
        entries.append(
            TranscriptEntry(
                at=message.created_at,
                kind=_message_kind(message.role),
                text=message.text,
                turn_id=message.answered_by_id,
                author=agent_console_name(message.author) if message.author_id else "",
            )
        )
    events = (
        OwnerEvent.objects.filter(conversation_id=conversation_id)
        .select_related("agent__agent_profile")
        .order_by("created_at", "pk")
    )
    for event in events:
        entries.append(
            TranscriptEntry(
                at=event.created_at,
                kind="owner",
                text=_owner_change_text(event),
            )
        )
    entries.sort(key=lambda entry: entry.at)  # stable: ties keep the order above
    return entries


def _answer_entry(turn: Turn) -> TranscriptEntry:
    if turn.completed_at is None:
        return TranscriptEntry(
            at=turn.created_at, kind="bot", text="", turn_id=turn.pk, pending=True
        )
    return TranscriptEntry(
        at=turn.completed_at,
        kind="bot",
        text=turn_shown_text(turn=turn),
        turn_id=turn.pk,
        status=turn.status,
        status_label=turn.get_status_display(),
        confidence=turn.confidence,
        sources=turn_source_titles(turn=turn),
        hidden=not turn.reply_text,
    )


def turn_shown_text(*, turn: Turn) -> str:
    """The text the visitor was shown (the answer itself when nothing was shown)."""
    return turn.reply_text or turn.answer


def turn_source_titles(*, turn: Turn) -> tuple[str, ...]:
    """The titles of the documents whose chunks the answer used (context_usage), each once."""
    used = {usage.get("chunk") for usage in turn.context_usage if usage.get("used_in_response")}
    titles: list[str] = []
    for chunk in turn.retrieved_chunks:
        title = chunk.get("title") or chunk.get("document_id") or ""
        if chunk.get("chunk_id") in used and title and title not in titles:
            titles.append(title)
    return tuple(titles)


def _message_kind(role: str) -> EntryKind:
    if role == Message.Role.AGENT:
        return "agent"
    if role == Message.Role.SYSTEM:
        return "system"
    return "visitor"


def _owner_change_text(event: OwnerEvent) -> str:
    moved = f"{event.get_from_owner_display()} → {event.get_to_owner_display()}"
    by = event.get_actor_display().lower()
    if event.agent_id:
        by = f"{by} {agent_console_name(event.agent)}"
    return f"{moved}, by the {by}" + (
        f" ({event.reason.replace('_', ' ')})" if event.reason else ""
    )
