"""The moves out of the bot's hands: bot → waiting_agent (a visitor's request, an escalated answer), and the
wait's timeout when no agent claims in time."""

from __future__ import annotations

import uuid

from django.db import transaction
from django.utils import timezone

from conversations.models import Conversation, Turn
from core.redaction import pii_redact
from handoff.live import conversation_channel
from handoff.models import Handoff, HandoffReason, Message, OwnerEvent
from handoff.queue import handoff_timeout_enqueue
from handoff.selectors import handoff_policy_get
from handoff.services.messages import message_create
from handoff.services.moves import HandoffError, Owner, conversation_get, owner_move, queue_changed
from streams.live import live_publish_on_commit


def handoff_open(
    *, conversation_id: uuid.UUID, reason: str, detail: str = "", turn_id: uuid.UUID | None = None
) -> Handoff:
    """Moves bot → waiting_agent and queues the conversation; idempotent while a handoff is open."""
    if reason not in HandoffReason.values:
        raise ValueError(f"unknown handoff reason {reason!r}")
    conversation = conversation_get(conversation_id=conversation_id)
    with transaction.atomic():
        actor = (
            OwnerEvent.Actor.VISITOR
            if reason == HandoffReason.VISITOR_REQUEST
            else OwnerEvent.Actor.BOT
        )
        moved = owner_move(
            conversation=conversation,
            from_owners={Owner.BOT},
            to_owner=Owner.WAITING_AGENT,
            actor=actor,
            reason=reason,
        )
        if moved is None:
            existing = Handoff.objects.filter(
                conversation=conversation, closed_at__isnull=True
            ).first()
            if existing is not None:
                return existing
            raise HandoffError(
                "handoff_not_allowed", f"the conversation is owned by {conversation.owner}"
            )
        return _handoff_create(conversation, reason=reason, detail=detail, turn_id=turn_id)


def _handoff_create(
    conversation: Conversation, *, reason: str, detail: str, turn_id: uuid.UUID | None
) -> Handoff:
    if conversation.bot.workspace.redact_personal_data:
        detail = pii_redact(detail)
    handoff = Handoff.objects.create(
        conversation=conversation, reason=reason, detail=detail[:1000], turn_id=turn_id
    )
    queue_changed(conversation, "waiting")
    policy = handoff_policy_get(conversation=conversation)
    handoff_id = str(handoff.pk)
    transaction.on_commit(
        lambda: handoff_timeout_enqueue(handoff_id=handoff_id, countdown=policy.timeout_seconds)
    )
    return handoff


def escalation_open(*, conversation: Conversation, turn: Turn) -> bool:
    """An answer routed to a human: bot → waiting_agent, its event, the handoff row and the queue
    entry in one transaction (the timeout and the live events after its commit). False when the bot
    no longer owns the conversation (the visitor asked for a human meanwhile, or an agent holds it)."""
    low = turn.route_reason == "low_confidence"
    reason = HandoffReason.LOW_CONFIDENCE if low else HandoffReason.HUMAN_ESCALATION
    with transaction.atomic():
        moved = owner_move(
            conversation=conversation,
            from_owners={Owner.BOT},
            to_owner=Owner.WAITING_AGENT,
            actor=OwnerEvent.Actor.BOT,
            reason=reason,
        )
        if moved is None:
            return False
        _handoff_create(conversation, reason=reason, detail="", turn_id=turn.pk)
    return True


def handoff_timeout(*, handoff_id: uuid.UUID) -> bool:
    """When nobody claimed in time: the policy's message to the visitor, once. True when it fired."""
    with transaction.atomic():
        fired = Handoff.objects.filter(
            pk=handoff_id,
            claimed_by__isnull=True,
            closed_at__isnull=True,
            timed_out_at__isnull=True,
        ).update(timed_out_at=timezone.now())
        if not fired:
            return False
        handoff = Handoff.objects.select_related("conversation__bot").get(pk=handoff_id)
        conversation = handoff.conversation
        if conversation.owner != Owner.WAITING_AGENT:
            return False
        policy = handoff_policy_get(conversation=conversation)
        message_create(
            conversation=conversation, role=Message.Role.SYSTEM, text=policy.timeout_text
        )
        # The widget leaves its "waiting" state on this event (the text is also its history's).
        live_publish_on_commit(
            channel=conversation_channel(conversation=conversation),
            event="handoff_timed_out",
            data={"text": policy.timeout_text},
        )
        queue_changed(conversation, "timed_out")
    return True
