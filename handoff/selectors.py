"""Reads of the handoff: a conversation's history (turns and messages merged), who is an agent, the bot's
history of a handed-off conversation. The console's queue and context pack are in ``handoff.console``."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from django.db.models import Prefetch, QuerySet

from conversations.models import Conversation, Turn
from conversations.pipeline.results import turn_citations
from conversations.services import HistoryMessage
from core.models import Membership
from core.permissions import CONSOLE_ROLES
from handoff.models import HandoffPolicy, Message, OwnerEvent
from handoff.names import agent_display_name

# The client message id of the bot's turn answering what a visitor asked an agent in vain
# (handoff.services.pending): its question is those messages, already in the history.
PENDING_ANSWER_PREFIX = "handoff/"


def user_is_agent(*, user: Any) -> bool:
    """The console is open to staff whose role in some workspace is one of core.permissions.CONSOLE_ROLES
    (a superuser: in any workspace they belong to)."""
    return bool(
        user.is_authenticated
        and user.is_active
        and user.is_staff
        and (user.is_superuser or agent_workspace_ids(user=user))
    )


def agent_workspace_ids(*, user: Any) -> list[uuid.UUID]:
    """The workspaces whose queue the user answers: where their role opens the console."""
    memberships = Membership.objects.filter(user=user)
    if not user.is_superuser:
        memberships = memberships.filter(role__in=CONSOLE_ROLES)
    return list(memberships.values_list("workspace_id", flat=True))


def agent_conversation_get(*, user: Any, conversation_id: uuid.UUID) -> Conversation | None:
    """The one choke point for the console: a conversation of one of the agent's workspaces, or None."""
    return (
        Conversation.objects.select_related("bot")
        .filter(pk=conversation_id, bot__workspace_id__in=agent_workspace_ids(user=user))
        .first()
    )


def handoff_policy_get(*, conversation: Conversation) -> HandoffPolicy:
    """The conversation's bot's handoff policy, or the defaults (unsaved) when it has none."""
    return HandoffPolicy.objects.filter(bot_id=conversation.bot_id).first() or HandoffPolicy(
        bot=conversation.bot
    )


def turn_is_pending_answer(*, turn: Turn) -> bool:
    """The bot's turn answering the visitor's messages an agent left unanswered: its question is those
    messages joined, so a history that lists the messages shows the question through them, once."""
    return turn.client_message_id.startswith(PENDING_ANSWER_PREFIX)


def conversation_turns(*, conversation: Conversation) -> list[Turn]:
    return list(Turn.objects.filter(conversation=conversation).order_by("created_at"))


def conversation_history(
    *, conversation: Conversation, turns: Sequence[Turn] | None = None
) -> list[dict[str, Any]]:
    """``[{id, role: visitor|bot|agent|system, text, created_at, turn_id, citations}]``, oldest first.
    `turns`: the conversation's turns (conversation_turns) when the caller has them already."""
    items: list[dict[str, Any]] = []
    if turns is None:
        turns = conversation_turns(conversation=conversation)
    for turn in turns:
        if not turn_is_pending_answer(turn=turn):
            items.append(
                _item(f"{turn.pk}:q", "visitor", turn.user_text, turn.created_at, turn.pk, [])
            )
        if turn.completed_at and turn.display_answer and turn.answer:
            items.append(
                _item(
                    str(turn.pk),
                    "bot",
                    turn.answer,
                    turn.completed_at,
                    turn.pk,
                    turn_citations(turn=turn),  # the live answer's numbering, on reload too
                )
            )
    messages = (
        Message.objects.filter(conversation=conversation)
        .select_related("author__agent_profile")
        .order_by("created_at")
    )
    for message in messages:
        item = _item(str(message.pk), message.role, message.text, message.created_at, None, [])
        item["author"] = agent_display_name(message.author, locale=conversation.bot.locale)
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


def conversations_with_history() -> QuerySet[Conversation]:
    """For the admin: conversations with their owner events prefetched."""
    return Conversation.objects.prefetch_related(
        Prefetch("owner_events", queryset=OwnerEvent.objects.all())
    )


def handoff_history_messages(
    conversation_id: uuid.UUID, *, exclude: Sequence[uuid.UUID] = ()
) -> list[HistoryMessage]:
    """The agent's and the visitor's messages, for the bot's history once the conversation is returned to it.

    Without the visitor's messages a bot turn answered (the turn's question holds them) and those in
    ``exclude`` (the question being answered now)."""
    rows = Message.objects.filter(
        conversation_id=conversation_id,
        role__in=[Message.Role.AGENT, Message.Role.VISITOR],
        answered_by__isnull=True,
    ).exclude(pk__in=exclude)
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
