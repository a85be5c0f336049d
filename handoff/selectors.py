"""Reads of the handoff: a conversation's history (turns and messages merged), the agents' queue, the context pack."""

from __future__ import annotations

import uuid
from typing import Any

from django.db.models import Prefetch, QuerySet
from django.utils import timezone

from conversations.models import Conversation, Turn
from conversations.services import HistoryMessage
from core.models import Membership
from handoff.models import Handoff, Message, OwnerEvent

AGENTS_GROUP = "Agents"


def agent_display_name(user: Any) -> str:
    return (user.get_full_name() or user.get_username()) if user else ""


def user_is_agent(*, user: Any) -> bool:
    return bool(
        user.is_authenticated
        and user.is_active
        and user.is_staff
        and user.groups.filter(name=AGENTS_GROUP).exists()
    )


def agent_workspace_ids(*, user: Any) -> list[uuid.UUID]:
    return list(Membership.objects.filter(user=user).values_list("workspace_id", flat=True))


def agent_conversation_get(*, user: Any, conversation_id: uuid.UUID) -> Conversation | None:
    """The one choke point for the console: a conversation of one of the agent's workspaces, or None."""
    return (
        Conversation.objects.select_related("bot")
        .filter(pk=conversation_id, bot__workspace_id__in=agent_workspace_ids(user=user))
        .first()
    )


def _turn_citations(turn: Turn) -> list[dict[str, Any]]:
    if turn.route_action != "show_answer" or turn.status != Turn.Status.FOUND_IN_CONTEXT:
        return []
    return [
        {
            "n": index,
            "chunk_id": chunk.get("chunk_id"),
            "document_id": chunk.get("document_id"),
            "title": chunk.get("title", ""),
            "page_number": chunk.get("page"),
        }
        for index, chunk in enumerate(turn.retrieved_chunks or [], start=1)
    ]


def conversation_history(*, conversation: Conversation) -> list[dict[str, Any]]:
    """``[{id, role: visitor|bot|agent|system, text, created_at, turn_id, citations}]``, oldest first."""
    items: list[dict[str, Any]] = []
    turns = Turn.objects.filter(conversation=conversation).order_by("created_at")
    for turn in turns:
        items.append(_item(f"{turn.pk}:q", "visitor", turn.user_text, turn.created_at, turn.pk, []))
        if turn.completed_at and turn.display_answer and turn.answer:
            items.append(
                _item(
                    str(turn.pk),
                    "bot",
                    turn.answer,
                    turn.completed_at,
                    turn.pk,
                    _turn_citations(turn),
                )
            )
    messages = (
        Message.objects.filter(conversation=conversation)
        .select_related("author")
        .order_by("created_at")
    )
    for message in messages:
        item = _item(str(message.pk), message.role, message.text, message.created_at, None, [])
        item["author"] = agent_display_name(message.author) if message.author_id else ""
        items.append(item)
    items.sort(key=lambda item: item["created_at"])
    return items


def _item(
    id_: str, role: str, text: str, created_at: Any, turn_id: Any, citations: list[Any]
) -> dict[str, Any]:
    return {
        "id": id_,
        "role": role,
        "text": text,
        "created_at": created_at.isoformat(),
        "turn_id": str(turn_id) if turn_id else None,
        "citations": citations,
    }


def agent_queue(*, user: Any) -> list[dict[str, Any]]:
    """Waiting conversations of the agent's workspaces, oldest first, plus the ones this agent holds."""
    now = timezone.now()
    open_handoffs: QuerySet[Handoff] = (
        Handoff.objects.filter(
            closed_at__isnull=True,
            conversation__bot__workspace_id__in=agent_workspace_ids(user=user),
        )
        .select_related("conversation__bot", "claimed_by")
        .order_by("opened_at")
    )
    rows = []
    for handoff in open_handoffs:
        conversation = handoff.conversation
        if conversation.owner == Conversation.Owner.AGENT and handoff.claimed_by_id != user.pk:
            continue
        rows.append(
            {
                "conversation_id": str(conversation.pk),
                "bot": conversation.bot.name,
                "owner": conversation.owner,
                "reason": handoff.reason,
                "opened_at": handoff.opened_at.isoformat(),
                "wait_seconds": int((now - handoff.opened_at).total_seconds()),
                "timed_out": handoff.timed_out_at is not None,
                "mine": handoff.claimed_by_id == user.pk,
            }
        )
    return rows


def context_pack(*, conversation: Conversation) -> dict[str, Any]:
    """What an agent needs to take over: history, the bot's last understanding, topic, confidence, reason, sources."""
    last_turn = (
        Turn.objects.filter(conversation=conversation, completed_at__isnull=False)
        .order_by("-created_at")
        .first()
    )
    handoff = (
        Handoff.objects.filter(conversation=conversation)
        .select_related("claimed_by")
        .order_by("-opened_at")
        .first()
    )
    events = OwnerEvent.objects.filter(conversation=conversation).select_related("agent")
    return {
        "conversation_id": str(conversation.pk),
        "bot": conversation.bot.name,
        "owner": conversation.owner,
        "history": conversation_history(conversation=conversation),
        "understanding": last_turn.understanding if last_turn else "",
        "topic": last_turn.topic if last_turn else "",
        "confidence": last_turn.confidence if last_turn else None,
        "sources": (last_turn.retrieved_chunks if last_turn else []) or [],
        "reason": handoff.get_reason_display() if handoff else "",
        "reason_detail": handoff.detail if handoff else "",
        "claimed_by": agent_display_name(handoff.claimed_by)
        if handoff and handoff.claimed_by_id
        else "",
        "owner_events": [
            {
                "from": event.from_owner,
                "to": event.to_owner,
                "actor": event.actor,
                "agent": agent_display_name(event.agent) if event.agent_id else "",
                "at": event.created_at.isoformat(),
            }
            for event in events
        ],
    }


def conversations_with_history() -> QuerySet[Conversation]:
    """For the admin: conversations with their owner events prefetched."""
    return Conversation.objects.prefetch_related(
        Prefetch("owner_events", queryset=OwnerEvent.objects.all())
    )


def handoff_history_messages(conversation_id: uuid.UUID) -> list[HistoryMessage]:
    """The agent's and the visitor's messages, for the bot's history once the conversation is returned to it."""
    rows = Message.objects.filter(
        conversation_id=conversation_id, role__in=[Message.Role.AGENT, Message.Role.VISITOR]
    )
    return [
        HistoryMessage(
            created_at=created_at,
            role="assistant" if role == Message.Role.AGENT else "user",
            content=f"(human agent) {text}" if role == Message.Role.AGENT else text,
        )
        for created_at, role, text in rows.order_by("created_at").values_list(
            "created_at", "role", "text"
        )
    ]
