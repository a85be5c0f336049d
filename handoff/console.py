"""Reads of the agent console: the queue (waiting conversations, the agent's own, and the ones the agent
handed back to the bot and has not closed yet) and a conversation's context pack.

Both name the escalation the way the analytics do (insights' ``ESCALATIONS_SQL``): low confidence,
asked (the button, or a request in words, whatever came before), repeated misses (the bot routed to a
human by itself after two turns that found nothing), else asked. And both quote the last question the
bot tried to answer, never the request for a human that followed it nor what was typed while waiting;
when the visitor asked nothing else, the request itself (issue 51: "I want to talk to a human" as the
first message left the panel empty).
"""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib.postgres.expressions import ArraySubquery
from django.db.models import (
    Case,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    UUIDField,
    Value,
    When,
)
from django.db.models.functions import Coalesce
from django.utils import timezone

from conversations.models import Conversation, Turn
from handoff.models import Handoff, HandoffReason, Message, OwnerEvent
from handoff.names import agent_console_name
from handoff.selectors import agent_workspace_ids, conversation_history

# Turns that asked the bot something: not a greeting, an attack or a request for a human.
QUESTION_STATUSES = (
    Turn.Status.FOUND_IN_CONTEXT,
    Turn.Status.NOT_FOUND_IN_CONTEXT,
    Turn.Status.OUT_OF_SCOPE,
)
REPEATED_MISSES = 2  # as insights.selectors.scope.ESCALATIONS_SQL counts them
NO_TURN = uuid.UUID(int=0)


class Escalation:
    """The stable codes of why a conversation reached an agent (the console localises them)."""

    ASKED = "asked"
    LOW_CONFIDENCE = "low_confidence"
    REPEATED_MISSES = "repeated_misses"


def _asked_first(turns: QuerySet[Turn]) -> QuerySet[Turn]:
    """The completed turns, the question turns first, each kind latest first: the first row is the last
    question asked of the bot, else the visitor's last message the bot answered (a request for a
    human the guard caught, a greeting), so the console never shows an empty question."""
    return (
        turns.filter(completed_at__isnull=False)
        .alias(
            asked_rank=Case(
                When(status__in=QUESTION_STATUSES, then=Value(0)),
                default=Value(1),
                output_field=IntegerField(),
            )
        )
        .order_by("asked_rank", "-created_at")
    )


def _question_turns() -> QuerySet[Turn]:
    """The conversation's turns up to the handoff's opening, the last question first."""
    return _asked_first(
        Turn.objects.filter(
            conversation_id=OuterRef("conversation_id"), created_at__lte=OuterRef("opened_at")
        )
    )


def _handoffs_described() -> QuerySet[Handoff]:
    """Handoffs with what the console says about them, in one statement: the last question asked of
    the bot, the visitor's last message since, and the statuses of the two turns before."""
    before = (
        Turn.objects.filter(
            conversation_id=OuterRef("conversation_id"), created_at__lte=OuterRef("opened_at")
        )
        # A handoff asked for with the button has no turn: compare with a UUID no turn has, as
        # "id <> NULL" would drop every turn (ESCALATIONS_SQL's IS DISTINCT FROM).
        .exclude(pk=Coalesce(OuterRef("turn_id"), Value(NO_TURN), output_field=UUIDField()))
        .order_by("-created_at")
        .values("status")[:REPEATED_MISSES]
    )
    since = (
        Message.objects.filter(
            conversation_id=OuterRef("conversation_id"),
            role=Message.Role.VISITOR,
            created_at__gte=OuterRef("opened_at"),
        )
        .order_by("-created_at")
        .values("text")[:1]
    )
    return Handoff.objects.annotate(
        asked_bot=Subquery(_question_turns().values("user_text")[:1]),
        asked_since=Subquery(since),
        statuses_before=ArraySubquery(before),
        opening_status=Subquery(Turn.objects.filter(pk=OuterRef("turn_id")).values("status")[:1]),
    )


def escalation_kind(handoff: Handoff) -> str:
    """Why the conversation reached an agent; the handoff carries ``statuses_before``."""
    if handoff.reason == HandoffReason.LOW_CONFIDENCE:
        return Escalation.LOW_CONFIDENCE
    opening = getattr(handoff, "opening_status", None)
    if handoff.reason == HandoffReason.VISITOR_REQUEST or opening == Turn.Status.HUMAN_ESCALATION:
        return Escalation.ASKED  # an explicit request, whatever the misses before it
    statuses = list(getattr(handoff, "statuses_before", None) or [])
    if len(statuses) >= REPEATED_MISSES and all(
        status == Turn.Status.NOT_FOUND_IN_CONTEXT for status in statuses
    ):
        return Escalation.REPEATED_MISSES
    return Escalation.ASKED


def agent_queue(*, user: Any) -> list[dict[str, Any]]:
    """The console's list, oldest first: waiting conversations of the agent's workspaces, the ones this
    agent holds, and the ones this agent returned to the bot and has not closed (one row per
    conversation, its latest handoff's). A constant number of queries."""
    now = timezone.now()
    handoffs = (
        _handoffs_described()
        .filter(conversation__bot__workspace_id__in=agent_workspace_ids(user=user))
        .filter(
            Q(closed_at__isnull=True)
            | Q(claimed_by=user, outcome=Handoff.Outcome.RETURNED, agent_closed_at__isnull=True)
        )
        .select_related("conversation__bot")
        .order_by("-opened_at")
    )
    rows: dict[str, dict[str, Any]] = {}
    for handoff in handoffs:
        conversation = handoff.conversation
        key = str(conversation.pk)
        if key in rows:
            continue  # an older handoff of a conversation already listed
        state = _row_state(handoff, user=user)
        if state is None:
            continue
        rows[key] = {
            "conversation_id": key,
            "bot": conversation.bot.name,
            "channel": conversation.channel,
            "channel_label": conversation.get_channel_display(),
            "owner": conversation.owner,
            "state": state,
            "reason": handoff.reason,
            "escalation": escalation_kind(handoff),
            "last_question": _last_question(handoff),
            "opened_at": handoff.opened_at.isoformat(),
            "wait_seconds": int((now - handoff.opened_at).total_seconds()),
            "timed_out": handoff.timed_out_at is not None,
            "mine": handoff.claimed_by_id == user.pk,
        }
    return sorted(rows.values(), key=lambda row: row["opened_at"])


def _last_question(handoff: Handoff) -> str:
    """The last question the bot tried to answer (the context pack's), else the visitor's last message
    since the handoff opened, else the reason the visitor gave when asking for a human (annotations of
    ``_handoffs_described``). A message typed while waiting is in the transcript; the queue names the
    question that led here (issue 26 found a later message shown as "Question")."""
    since: str | None = getattr(handoff, "asked_since", None)
    asked: str | None = getattr(handoff, "asked_bot", None)
    return asked or since or handoff.detail


def _row_state(handoff: Handoff, *, user: Any) -> str | None:
    """waiting, mine (held by this agent), handled (returned to the bot, still in the list), or None
    when another agent holds it."""
    if handoff.closed_at is not None:
        return "handled"
    if handoff.claimed_by_id is None:
        return "waiting"
    return "mine" if handoff.claimed_by_id == user.pk else None


def _sources(turn: Turn | None) -> list[dict[str, Any]]:
    """The chunks the answer used: the document's title, page, and the sentences it quoted."""
    if turn is None:
        return []
    quoted = {
        usage.get("chunk"): list(usage.get("sentences") or [])
        for usage in turn.context_usage or []
        if usage.get("used_in_response")
    }
    return [
        {
            "chunk_id": chunk.get("chunk_id"),
            "document_id": chunk.get("document_id"),
            "title": chunk.get("title", ""),
            "page": chunk.get("page"),
            "sentences": quoted[chunk.get("chunk_id")],
        }
        for chunk in turn.retrieved_chunks or []
        if chunk.get("chunk_id") in quoted
    ]


def context_pack(*, conversation: Conversation, viewer: Any = None) -> dict[str, Any]:
    """What an agent needs to take over: the history, the question that led to the escalation (the last
    one asked of the bot, not the request for a human unless the visitor asked nothing else), the bot's
    understanding of it, its topic,
    confidence and the sources of its answer (titles and quoted sentences), and why it escalated."""
    handoff = (
        _handoffs_described()
        .filter(conversation=conversation)
        .select_related("claimed_by__agent_profile")
        .order_by("-opened_at")
        .first()
    )
    asked = Turn.objects.filter(conversation=conversation)
    if handoff is not None:
        asked = asked.filter(created_at__lte=handoff.opened_at)
    question_turn = _asked_first(asked).first()
    events = OwnerEvent.objects.filter(conversation=conversation).select_related(
        "agent__agent_profile"
    )
    return {
        "conversation_id": str(conversation.pk),
        "bot": conversation.bot.name,
        "channel": conversation.channel,
        "channel_label": conversation.get_channel_display(),
        "owner": conversation.owner,
        "history": conversation_history(conversation=conversation),
        "question": question_turn.user_text if question_turn else "",
        "understanding": question_turn.understanding if question_turn else "",
        "topic": question_turn.topic if question_turn else "",
        "confidence": question_turn.confidence if question_turn else None,
        "sources": _sources(question_turn),
        "reason": handoff.get_reason_display() if handoff else "",
        "escalation": escalation_kind(handoff) if handoff else "",
        "reason_detail": handoff.detail if handoff else "",
        "claimed_by": agent_console_name(handoff.claimed_by) if handoff else "",
        "mine": bool(handoff and viewer is not None and handoff.claimed_by_id == viewer.pk),
        "closable": bool(
            handoff
            and viewer is not None
            and handoff.claimed_by_id == viewer.pk
            and handoff.outcome == Handoff.Outcome.RETURNED
            and handoff.agent_closed_at is None
        ),
        "owner_events": [
            {
                "from": event.from_owner,
                "to": event.to_owner,
                "actor": event.actor,
                "agent": agent_console_name(event.agent),
                "at": event.created_at.isoformat(),
            }
            for event in events
        ],
    }
