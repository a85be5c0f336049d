"""An agent's moves: claim a waiting conversation (exactly one agent wins), post in it, return it to the bot,
resolve it, close a returned one in the console."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from conversations.models import Conversation
from handoff.models import Handoff, Message, OwnerEvent
from handoff.names import agent_console_name
from handoff.queue import handoff_pending_answer_enqueue
from handoff.services.messages import message_create
from handoff.services.moves import HandoffError, Owner, conversation_get, owner_move, queue_changed


@dataclass(frozen=True)
class ClaimResult:
    won: bool
    handoff: Handoff
    claimed_by_name: str  # for agents: the display name and the login (names.agent_console_name)


def handoff_claim(*, conversation_id: uuid.UUID, agent: Any) -> ClaimResult:
    """Exactly one agent wins a waiting conversation; the others learn who did."""
    conversation = conversation_get(conversation_id=conversation_id)
    with transaction.atomic():
        moved = owner_move(
            conversation=conversation,
            from_owners={Owner.WAITING_AGENT},
            to_owner=Owner.AGENT,
            actor=OwnerEvent.Actor.AGENT,
            agent=agent,
            reason="claimed",
        )
        handoff = (
            Handoff.objects.select_related("claimed_by")
            .filter(conversation=conversation)
            .order_by("-opened_at")
        )
        current = handoff.first()
        if current is None:
            raise HandoffError("no_handoff", "this conversation was never handed off")
        if moved is None:
            return ClaimResult(
                won=False,
                handoff=current,
                claimed_by_name=agent_console_name(current.claimed_by),
            )
        Handoff.objects.filter(pk=current.pk, claimed_by__isnull=True).update(
            claimed_by=agent, claimed_at=timezone.now()
        )
        current.refresh_from_db()
        queue_changed(conversation, "claimed")
    return ClaimResult(
        won=True,
        handoff=current,
        claimed_by_name=agent_console_name(agent),
    )


def _agent_owned_handoff(conversation: Conversation, agent: Any) -> Handoff:
    handoff = Handoff.objects.filter(conversation=conversation, closed_at__isnull=True).first()
    if conversation.owner != Owner.AGENT or handoff is None or handoff.claimed_by_id != agent.pk:
        raise HandoffError(
            "not_your_conversation", "another agent owns this conversation, or nobody does"
        )
    return handoff


def _close(*, conversation_id: uuid.UUID, agent: Any, to_owner: str, outcome: str) -> Conversation:
    conversation = conversation_get(conversation_id=conversation_id)
    with transaction.atomic():
        handoff = _agent_owned_handoff(conversation, agent)
        moved = owner_move(
            conversation=conversation,
            from_owners={Owner.AGENT},
            to_owner=to_owner,
            actor=OwnerEvent.Actor.AGENT,
            agent=agent,
            reason=outcome,
        )
        if moved is None:
            raise HandoffError("not_your_conversation", "the conversation changed owner meanwhile")
        now = timezone.now()
        # Resolving closes it in the agent's console too; a return keeps it there until closed.
        agent_closed_at = now if outcome == Handoff.Outcome.RESOLVED else None
        Handoff.objects.filter(pk=handoff.pk, closed_at__isnull=True).update(
            closed_at=now, outcome=outcome, agent_closed_at=agent_closed_at
        )
        queue_changed(conversation, outcome)
        if outcome == Handoff.Outcome.RETURNED:
            _pending_answer_enqueue(handoff_id=handoff.pk)
    return conversation


def _pending_answer_enqueue(*, handoff_id: uuid.UUID) -> None:
    key = str(handoff_id)
    transaction.on_commit(lambda: handoff_pending_answer_enqueue(handoff_id=key))


def handoff_return_to_bot(*, conversation_id: uuid.UUID, agent: Any) -> Conversation:
    """agent → bot: the bot answers the next visitor message (its history includes the agent's
    messages), and, from a worker after the commit, the visitor's messages the agent left unanswered
    (``handoff.services.pending.handoff_pending_answer``)."""
    return _close(
        conversation_id=conversation_id,
        agent=agent,
        to_owner=Owner.BOT,
        outcome=Handoff.Outcome.RETURNED,
    )


def handoff_resolve(*, conversation_id: uuid.UUID, agent: Any) -> Conversation:
    return _close(
        conversation_id=conversation_id,
        agent=agent,
        to_owner=Owner.RESOLVED,
        outcome=Handoff.Outcome.RESOLVED,
    )


def handoff_console_close(*, conversation_id: uuid.UUID, agent: Any) -> int:
    """The agent closes, in the console, a conversation they returned to the bot: it leaves their list.
    HandoffError when there is none of theirs to close (still theirs, someone else's, closed already)."""
    conversation = conversation_get(conversation_id=conversation_id)
    closed = Handoff.objects.filter(
        conversation=conversation,
        claimed_by=agent,
        outcome=Handoff.Outcome.RETURNED,
        agent_closed_at__isnull=True,
    ).update(agent_closed_at=timezone.now())
    if not closed:
        raise HandoffError(
            "nothing_to_close", "this conversation is not one you returned to the bot"
        )
    return closed


def agent_message_post(
    *, conversation_id: uuid.UUID, agent: Any, text: str, client_message_id: str = ""
) -> Message:
    conversation = conversation_get(conversation_id=conversation_id)
    _agent_owned_handoff(conversation, agent)
    return message_create(
        conversation=conversation,
        role=Message.Role.AGENT,
        text=text,
        author=agent,
        client_message_id=client_message_id,
    )
