"""A visitor's message, the owner moves and the messages of a handoff: receive, open, claim, post,
return to the bot, resolve, time out.

``visitor_message_receive`` is the one entry point for a visitor's message (the chat API, JSON or
streamed, and the widget through it): while the owner is ``waiting_agent`` or ``agent`` the bot is
muted and the message goes to the agent; otherwise the answer pipeline answers it, and an answer
routed to a human opens the handoff here. Every move is one conditional UPDATE on
``Conversation.owner`` (the row lock makes concurrent moves serialize; the loser updates nothing)
plus one ``OwnerEvent``, in the transaction that writes what the move implies (the ``Handoff`` row);
live events and the timeout go out after the commit.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Subquery
from django.utils import timezone

from conversations.models import Conversation, Turn
from conversations.pipeline.events import PipelineEmitter
from conversations.pipeline.results import muted_result_json
from conversations.pipeline.turns import BOT_ENDPOINT, TurnResult, turn_answer
from core.errors import ErrorKind, ParleyError
from core.llm.types import LLMEndpoint
from handoff.live import conversation_channel, queue_channel
from handoff.models import Handoff, HandoffPolicy, HandoffReason, Message, OwnerEvent
from handoff.selectors import agent_display_name, handoff_history_messages
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
    claimed_by_name: str


def message_data(message: Message) -> dict[str, Any]:
    return {
        "id": str(message.id),
        "role": message.role,
        "text": message.text,
        "created_at": message.created_at.isoformat(),
        "author": agent_display_name(message.author) if message.author_id else "",
    }


def _conversation(conversation_id: uuid.UUID) -> Conversation:
    return Conversation.objects.select_related("bot").get(pk=conversation_id)


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
    live_publish_on_commit(
        channel=conversation_channel(conversation=conversation),
        event="owner_changed",
        data={
            "owner": to_owner,
            "previous": previous,
            "reason": reason,
            "agent": agent_display_name(agent),
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
    conversation = _conversation(conversation_id)
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
    from handoff.tasks import handoff_timeout_check  # tasks import services

    handoff = Handoff.objects.create(
        conversation=conversation, reason=reason, detail=detail[:1000], turn_id=turn_id
    )
    _queue_changed(conversation, "waiting")
    policy = HandoffPolicy.objects.filter(bot_id=conversation.bot_id).first() or HandoffPolicy(
        bot=conversation.bot
    )
    handoff_id = str(handoff.pk)
    transaction.on_commit(
        lambda: handoff_timeout_check.apply_async(
            args=[handoff_id], countdown=policy.timeout_seconds
        )
    )
    return handoff


def _escalation_open(*, conversation: Conversation, turn: Turn) -> bool:
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
    conversation = _conversation(conversation_id)
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
                won=False, handoff=current, claimed_by_name=agent_display_name(current.claimed_by)
            )
        Handoff.objects.filter(pk=current.pk, claimed_by__isnull=True).update(
            claimed_by=agent, claimed_at=timezone.now()
        )
        current.refresh_from_db()
        _queue_changed(conversation, "claimed")
    return ClaimResult(won=True, handoff=current, claimed_by_name=agent_display_name(agent))


def _agent_owned_handoff(conversation: Conversation, agent: Any) -> Handoff:
    handoff = Handoff.objects.filter(conversation=conversation, closed_at__isnull=True).first()
    if conversation.owner != Owner.AGENT or handoff is None or handoff.claimed_by_id != agent.pk:
        raise HandoffError(
            "not_your_conversation", "another agent owns this conversation, or nobody does"
        )
    return handoff


def _close(*, conversation_id: uuid.UUID, agent: Any, to_owner: str, outcome: str) -> Conversation:
    conversation = _conversation(conversation_id)
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
        Handoff.objects.filter(pk=handoff.pk, closed_at__isnull=True).update(
            closed_at=timezone.now(), outcome=outcome
        )
        _queue_changed(conversation, outcome)
    return conversation


def handoff_return_to_bot(*, conversation_id: uuid.UUID, agent: Any) -> Conversation:
    """agent → bot: the bot answers the next visitor message (its history includes the agent's messages)."""
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


def _message_create(
    *,
    conversation: Conversation,
    role: str,
    text: str,
    author: Any = None,
    client_message_id: str = "",
) -> Message:
    try:
        with transaction.atomic():
            message = Message.objects.create(
                conversation=conversation,
                role=role,
                text=text,
                author=author,
                client_message_id=client_message_id,
            )
    except IntegrityError:
        if not client_message_id:
            raise
        return Message.objects.get(conversation=conversation, client_message_id=client_message_id)
    live_publish_on_commit(
        channel=conversation_channel(conversation=conversation),
        event=f"{role}_message",
        data=message_data(message),
    )
    return message


def visitor_message_post(
    *, conversation_id: uuid.UUID, text: str, client_message_id: str = ""
) -> dict[str, Any]:
    """The muted branch: store the visitor's message and relay it to the agent; HandoffError when the
    bot owns the conversation. The owner is read under the row lock every move takes, so a message
    is never stored for an agent who has just handed the conversation back.

    Idempotent on client_message_id. Returns ``{status, owner, message}``.
    """
    conversation = _conversation(conversation_id)
    with transaction.atomic():
        owner = (
            Conversation.objects.select_for_update()
            .filter(pk=conversation.pk)
            .values_list("owner", flat=True)
            .first()
        )
        if owner not in MUTED_OWNERS:
            raise HandoffError("bot_owns_conversation", "the bot answers this conversation")
        conversation.owner = owner
        message = _message_create(
            conversation=conversation,
            role=Message.Role.VISITOR,
            text=text,
            client_message_id=client_message_id,
        )
    return {
        "status": "forwarded_to_agent",
        "owner": conversation.owner,
        "message": message_data(message),
    }


@dataclass(frozen=True)
class VisitorMessageResult:
    """What a visitor's message came to.

    ``payload`` is the chat API's body: the bot's turn, or ``{status: forwarded_to_agent, owner}``
    when the message went to the agent (``muted``, the stored message in ``message``).
    ``answer_deferred``: the bot answers, but in the caller's stream worker (``answer_elsewhere``).
    """

    payload: dict[str, Any]
    turn: Turn | None = None
    created: bool = False
    muted: bool = False
    escalated: bool = False
    message: dict[str, Any] | None = None
    answer_deferred: bool = False


def visitor_message_receive(
    *,
    conversation_id: uuid.UUID,
    client_message_id: str,
    text: str,
    external_user_id: str | None = None,
    emitter: PipelineEmitter | None = None,
    endpoint: LLMEndpoint | None = BOT_ENDPOINT,
    answer_elsewhere: bool = False,
) -> VisitorMessageResult:
    """The one entry point for a visitor's message: forwarded to the agent while one owns (or is
    awaited for) the conversation, else answered by the bot, and a handoff opened when the answer is
    routed to a human.

    Idempotent on the client message id across both branches: a message the bot answered is
    replayed even once an agent owns the conversation, and one forwarded to an agent is not answered
    by the bot once the conversation is returned to it. A repeated delivery also finishes an
    escalation a failure interrupted (the turn is stored before the handoff opens).

    ``answer_elsewhere``: the caller streams the bot's answer from a worker, which calls this again
    with its ``emitter``; here the muted branch is taken or ``answer_deferred`` returned.
    """
    conversation = _conversation_for_delivery(
        conversation_id=conversation_id, client_message_id=client_message_id
    )
    forwarded = getattr(conversation, "forwarded_message_id", None)
    if forwarded is not None:
        message = Message.objects.select_related("author").get(pk=forwarded)
        return _forwarded(owner=conversation.owner, message=message_data(message))
    if conversation.owner in MUTED_OWNERS and not getattr(conversation, "answered", False):
        try:
            posted = visitor_message_post(
                conversation_id=conversation.pk, text=text, client_message_id=client_message_id
            )
        except HandoffError:  # returned to the bot meanwhile: the bot answers
            conversation.owner = Owner.BOT
        else:
            return _forwarded(owner=posted["owner"], message=posted["message"])
    if answer_elsewhere:
        return VisitorMessageResult(payload={}, answer_deferred=True)
    result = turn_answer(
        conversation_id=conversation.pk,
        client_message_id=client_message_id,
        message=text,
        external_user_id=external_user_id,
        emitter=emitter,
        endpoint=endpoint,
        # Only a conversation once handed off has messages besides the bot's turns.
        history_extra=handoff_history_messages(conversation.pk)
        if getattr(conversation, "handed_off", True)
        else (),
    )
    escalate = result.escalation_requested or _escalation_interrupted(
        result=result, conversation=conversation
    )
    escalated = escalate and _escalation_open(conversation=conversation, turn=result.turn)
    payload = {**result.payload, "owner": Owner.WAITING_AGENT} if escalated else result.payload
    return VisitorMessageResult(payload, result.turn, result.created, escalated=escalated)


def visitor_message_body(received: VisitorMessageResult) -> dict[str, Any]:
    """The chat API's body: the turn's, or the forwarded message's with the stored message."""
    if received.muted:
        return {**received.payload, "message": received.message}
    return received.payload


def _conversation_for_delivery(
    *, conversation_id: uuid.UUID, client_message_id: str
) -> Conversation:
    """The conversation, with what an earlier delivery of this message left (one round trip)."""
    forwarded = Message.objects.filter(
        conversation=OuterRef("pk"),
        client_message_id=client_message_id,
        role=Message.Role.VISITOR,
    ).values("pk")[:1]
    answered = Turn.objects.filter(conversation=OuterRef("pk"), client_message_id=client_message_id)
    handed_off = Handoff.objects.filter(conversation=OuterRef("pk"))
    return (
        Conversation.objects.select_related("bot")
        .annotate(
            forwarded_message_id=Subquery(forwarded),
            answered=Exists(answered),
            handed_off=Exists(handed_off),
        )
        .get(pk=conversation_id)
    )


def _forwarded(*, owner: str, message: dict[str, Any]) -> VisitorMessageResult:
    return VisitorMessageResult(muted_result_json(owner=owner), muted=True, message=message)


def _escalation_interrupted(*, result: TurnResult, conversation: Conversation) -> bool:
    """A replayed turn routed to a human whose handoff never opened (the process died, or the
    database failed, after the turn was stored): the repeated delivery opens it."""
    return (
        not result.created
        and result.turn.route_action == "open_handoff"
        and conversation.owner == Owner.BOT
        and not Handoff.objects.filter(turn_id=result.turn.pk).exists()
    )


def agent_message_post(
    *, conversation_id: uuid.UUID, agent: Any, text: str, client_message_id: str = ""
) -> Message:
    conversation = _conversation(conversation_id)
    _agent_owned_handoff(conversation, agent)
    return _message_create(
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
        policy = HandoffPolicy.objects.filter(bot_id=conversation.bot_id).first() or HandoffPolicy(
            bot=conversation.bot
        )
        _message_create(
            conversation=conversation, role=Message.Role.SYSTEM, text=policy.timeout_text
        )
        _queue_changed(conversation, "timed_out")
    return True
