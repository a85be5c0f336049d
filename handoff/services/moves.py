"""Owner moves and the messages of a handoff: open, claim, post, return to the bot, resolve, time out.

Every move is one conditional UPDATE on ``Conversation.owner`` (the row lock makes concurrent
moves serialize; the loser updates nothing) plus one ``OwnerEvent``, in the transaction that writes
what the move implies (the ``Handoff`` row); live events and the timeout go out after the commit.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from conversations.channels import channel_relay_on_commit
from conversations.models import Conversation, Turn
from core.errors import ErrorKind, ParleyError
from core.redaction import pii_redact
from handoff.live import conversation_channel, queue_channel
from handoff.models import Handoff, HandoffReason, Message, OwnerEvent
from handoff.names import agent_console_name, agent_display_name
from handoff.queue import handoff_pending_answer_enqueue, handoff_timeout_enqueue
from handoff.selectors import handoff_policy_get
from streams.live import live_publish, live_publish_on_commit

Owner = Conversation.Owner
MUTED_OWNERS = frozenset({Owner.WAITING_AGENT, Owner.AGENT})


class HandoffError(ParleyError):
    """A move that the conversation's current state does not allow; ``code`` is stable."""

    kind = ErrorKind.CONFLICT

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message, code=code)


@dataclass(frozen=True)
class ClaimResult:
    won: bool
    handoff: Handoff
    claimed_by_name: str  # for agents: the display name and the login (names.agent_console_name)


def message_data(message: Message) -> dict[str, Any]:
    """A message as visitors and agents read it; an agent's ``author`` is the display name."""
    return {
        "id": str(message.id),
        "role": message.role,
        "text": message.text,
        "created_at": message.created_at.isoformat(),
        "author": agent_display_name(message.author, locale=message.conversation.bot.locale),
    }


def conversation_get(*, conversation_id: uuid.UUID) -> Conversation:
    """The conversation every move starts from, with its bot (for names, the locale, the policy) and the
    bot's workspace (for its privacy settings: stored text redacted or not)."""
    return Conversation.objects.select_related("bot__workspace").get(pk=conversation_id)


def _move(
    *,
    conversation: Conversation,
    from_owners: set[str],
    to_owner: str,
    actor: str,
    agent: Any = None,
    reason: str = "",
) -> str | None:
    """The conditional UPDATE; returns the previous owner when this call made the move, else None."""
    previous = (
        Conversation.objects.select_for_update()
        .filter(pk=conversation.pk, owner__in=from_owners)
        .values_list("owner", flat=True)
        .first()
    )
    if previous is None:
        return None
    Conversation.objects.filter(pk=conversation.pk, owner=previous).update(
        owner=to_owner, updated_at=timezone.now()
    )
    OwnerEvent.objects.create(
        conversation=conversation,
        from_owner=previous,
        to_owner=to_owner,
        actor=actor,
        agent=agent,
        reason=reason,
    )
    conversation.owner = to_owner
    channel_relay_on_commit(conversation=conversation)  # the handoff notice, on a platform
    live_publish_on_commit(
        channel=conversation_channel(conversation=conversation),
        event="owner_changed",
        data={
            "owner": to_owner,
            "previous": previous,
            "reason": reason,
            "agent": agent_display_name(agent, locale=conversation.bot.locale),
        },
    )
    return previous


def _queue_changed(conversation: Conversation, change: str) -> None:
    live_publish_on_commit(
        channel=queue_channel(workspace_id=conversation.bot.workspace_id),
        event="queue_changed",
        data={"conversation_id": str(conversation.pk), "change": change},
    )


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
        moved = _move(
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
    _queue_changed(conversation, "waiting")
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
        moved = _move(
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


def handoff_claim(*, conversation_id: uuid.UUID, agent: Any) -> ClaimResult:
    """Exactly one agent wins a waiting conversation; the others learn who did."""
    conversation = conversation_get(conversation_id=conversation_id)
    with transaction.atomic():
        moved = _move(
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
        _queue_changed(conversation, "claimed")
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
        moved = _move(
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
        _queue_changed(conversation, outcome)
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


def message_create(
    *,
    conversation: Conversation,
    role: str,
    text: str,
    author: Any = None,
    client_message_id: str = "",
) -> Message:
    redact = conversation.bot.workspace.redact_personal_data
    try:
        with transaction.atomic():
            message = Message.objects.create(
                conversation=conversation,
                role=role,
                text=pii_redact(text) if redact else text,
                author=author,
                client_message_id=client_message_id,
            )
        # The row keeps the redacted text; the live event and the sender's answer carry the message
        # as it was written (redaction never changes what the conversation shows while it happens).
        message.text = text
    except IntegrityError:
        if not client_message_id:
            raise
        existing = Message.objects.select_related("author__agent_profile").get(
            conversation=conversation, client_message_id=client_message_id
        )
        existing.conversation = conversation
        return existing
    if role != Message.Role.VISITOR:  # an agent's reply or a system notice, on a platform
        channel_relay_on_commit(conversation=conversation)
    live_publish_on_commit(
        channel=conversation_channel(conversation=conversation),
        event=f"{role}_message",
        data=message_data(message),
    )
    return message


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


def typing_signal(*, conversation: Conversation, who: str) -> None:
    """Ephemeral: not stored, only relayed (``agent_typing`` to the widget, ``visitor_typing`` to the agent)."""
    if who not in {"agent", "visitor"}:
        raise ValueError(who)
    live_publish(
        channel=conversation_channel(conversation=conversation), event=f"{who}_typing", data={}
    )


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
        _queue_changed(conversation, "timed_out")
    return True
