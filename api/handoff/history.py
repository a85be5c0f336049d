"""Reads of what a visitor's widget shows after a reload: each answer's sources, explanation and
feedback, and the state of an open handoff (waiting since, timed out, message left).

The server is the source of truth: a reload on another device shows what the first one showed.
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from conversations.models import Conversation
from conversations.pipeline.results import turn_citations
from handoff.models import Handoff, Message, TurnFeedback
from handoff.names import agent_display_name
from handoff.selectors import conversation_history, conversation_turns, handoff_policy_get


def visitor_history_get(*, conversation: Conversation) -> list[dict[str, Any]]:
    """The conversation's history; each bot answer also carries ``citations`` (the sources the answer
    used, numbered as the live answer numbered them), ``feedback`` (``{rating, reasons}`` or None) and,
    when the bot explains its answers, ``understanding``, ``confidence`` and ``context_usage``."""
    loaded = conversation_turns(conversation=conversation)
    items = conversation_history(conversation=conversation, turns=loaded)
    turn_ids = [item["turn_id"] for item in items if item["role"] == "bot" and item["turn_id"]]
    turns = {str(turn.pk): turn for turn in loaded}
    feedback = {
        str(row.turn_id): {"rating": row.rating, "reasons": list(row.reasons)}
        for row in TurnFeedback.objects.filter(turn_id__in=turn_ids)
    }
    explain = conversation.bot.explainability
    for item in items:
        turn = turns.get(item["turn_id"] or "") if item["role"] == "bot" else None
        if turn is None:
            continue
        item["citations"] = turn_citations(turn=turn)
        item["feedback"] = feedback.get(str(turn.pk))
        if explain:
            item["understanding"] = turn.understanding
            item["confidence"] = turn.confidence
            item["context_usage"] = list(turn.context_usage)
    return items


def visitor_handoff_state_get(*, conversation: Conversation) -> dict[str, Any] | None:
    """The open handoff as the visitor sees it, or None: ``{wait_seconds, timed_out, timeout_text,
    message_left, agent, claimed_at}``. ``message_left``: the visitor wrote after the no-agent
    timeout; ``agent`` and ``claimed_at``: the display name of the agent who claimed it ('' while
    nobody has) and when, so a reload says who joined, where the live ``owner_changed`` said it."""
    handoff = (
        Handoff.objects.filter(conversation=conversation, closed_at__isnull=True)
        .select_related("claimed_by__agent_profile")
        .order_by("-opened_at")
        .first()
    )
    if handoff is None:
        return None
    state: dict[str, Any] = {
        # Seconds, not a timestamp: the widget counts on from it with its own clock.
        "wait_seconds": int((timezone.now() - handoff.opened_at).total_seconds()),
        "timed_out": handoff.timed_out_at is not None,
        "timeout_text": "",
        "message_left": False,
        "agent": agent_display_name(handoff.claimed_by, locale=conversation.bot.locale),
        "claimed_at": handoff.claimed_at.isoformat() if handoff.claimed_at else None,
    }
    if handoff.timed_out_at is not None:
        state["timeout_text"] = handoff_policy_get(conversation=conversation).timeout_text
        state["message_left"] = Message.objects.filter(
            conversation=conversation,
            role=Message.Role.VISITOR,
            created_at__gt=handoff.timed_out_at,
        ).exists()
    return state
