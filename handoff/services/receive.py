"""A visitor's message: the one entry point (`visitor_message_receive`), for the chat API, JSON or
streamed, and the widget through it. While the owner is ``waiting_agent`` or ``agent`` the bot is
muted and the message goes to the agent; otherwise the answer pipeline answers it, and an answer
routed to a human opens the handoff (`handover.escalation_open`: one transaction).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from django.db import transaction
from django.db.models import Exists, OuterRef, Subquery
from django_stubs_ext import WithAnnotations

from conversations.channels import channel_relay_on_commit
from conversations.models import Conversation, Turn
from conversations.pipeline.events import PipelineEmitter
from conversations.pipeline.results import muted_result_json
from conversations.pipeline.turns import BOT_ENDPOINT, TurnResult, turn_answer
from core.llm.types import LLMEndpoint
from handoff.live import conversation_channel
from handoff.models import Handoff, Message
from handoff.selectors import handoff_history_messages
from handoff.services.handover import escalation_open
from handoff.services.messages import message_create, message_data
from handoff.services.moves import MUTED_OWNERS, HandoffError, Owner, conversation_get
from streams.live import live_publish_on_commit


def visitor_message_post(
    *, conversation_id: uuid.UUID, text: str, client_message_id: str = ""
) -> dict[str, Any]:
    """The muted branch: store the visitor's message and relay it to the agent; HandoffError when the
    bot owns the conversation. The owner is read under the row lock every move takes, so a message
    is never stored for an agent who has just handed the conversation back.

    Idempotent on client_message_id. Returns ``{status, owner, message}``.
    """
    conversation = conversation_get(conversation_id=conversation_id)
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
        message = message_create(
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
    forwarded = conversation.forwarded_message_id
    if forwarded is not None:
        message = Message.objects.select_related("author__agent_profile", "conversation__bot").get(
            pk=forwarded
        )
        return _forwarded(owner=conversation.owner, message=message_data(message))
    if conversation.owner in MUTED_OWNERS and not conversation.answered:
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
    return bot_answer(
        conversation=conversation,
        client_message_id=client_message_id,
        text=text,
        external_user_id=external_user_id,
        emitter=emitter,
        endpoint=endpoint,
        # Only a conversation once handed off has messages besides the bot's turns.
        handed_off=conversation.handed_off,
    )


def bot_answer(
    *,
    conversation: Conversation,
    client_message_id: str,
    text: str,
    external_user_id: str | None = None,
    emitter: PipelineEmitter | None = None,
    endpoint: LLMEndpoint | None = BOT_ENDPOINT,
    handed_off: bool = True,
    history_exclude: Sequence[uuid.UUID] = (),
    pending_answer: bool = False,
) -> VisitorMessageResult:
    """The bot's branch of `visitor_message_receive` (and of the answer to messages an agent left
    unanswered, ``pending_answer``, whose own messages are the question: ``history_exclude``): the
    turn, the handoff an answer routed to a human opens, and, in a conversation once handed off, the
    turn announced live to the agents watching it."""
    result = turn_answer(
        conversation_id=conversation.pk,
        client_message_id=client_message_id,
        message=text,
        external_user_id=external_user_id,
        emitter=emitter,
        endpoint=endpoint,
        history_extra=handoff_history_messages(conversation.pk, exclude=history_exclude)
        if handed_off
        else (),
    )
    escalate = result.escalation_requested or _escalation_interrupted(
        result=result, conversation=conversation
    )
    escalated = escalate and escalation_open(conversation=conversation, turn=result.turn)
    payload = {**result.payload, "owner": Owner.WAITING_AGENT} if escalated else result.payload
    if handed_off and result.created:
        channel_relay_on_commit(
            conversation=conversation
        )  # e.g. the answer after a return to the bot
        live_publish_on_commit(
            channel=conversation_channel(conversation=conversation),
            event="turn_answered",
            data=_turn_announced(result.turn, payload=payload, pending_answer=pending_answer),
        )
    return VisitorMessageResult(
        payload=payload, turn=result.turn, created=result.created, escalated=escalated
    )


def _turn_announced(turn: Turn, *, payload: dict[str, Any], pending_answer: bool) -> dict[str, Any]:
    """A bot turn as the console shows it (its ids those of ``conversation_history``'s items);
    ``pending_answer``: it answers messages the visitor sent the agent, not a message of its own."""
    return {
        "turn_id": str(turn.pk),
        "question": turn.user_text,
        "answer": payload.get("answer", "") if turn.display_answer else "",
        "status": turn.status,
        "citations": payload.get("citations", []),
        "owner": payload.get("owner", ""),
        "created_at": turn.created_at.isoformat(),
        "completed_at": turn.completed_at.isoformat() if turn.completed_at else None,
        "pending_answer": pending_answer,
    }


def visitor_message_body(received: VisitorMessageResult) -> dict[str, Any]:
    """The chat API's body: the turn's, or the forwarded message's with the stored message."""
    if received.muted:
        return {**received.payload, "message": received.message}
    return received.payload


class DeliveryState(TypedDict):
    """What an earlier delivery of the same message left, as `_conversation_for_delivery`
    annotates it: the message forwarded to an agent, a bot turn, any handoff of the conversation."""

    forwarded_message_id: uuid.UUID | None
    answered: bool
    handed_off: bool


def _conversation_for_delivery(
    *, conversation_id: uuid.UUID, client_message_id: str
) -> WithAnnotations[Conversation, DeliveryState]:
    """The conversation, with what an earlier delivery of this message left (one round trip)."""
    forwarded = Message.objects.filter(
        conversation=OuterRef("pk"),
        client_message_id=client_message_id,
        role=Message.Role.VISITOR,
    ).values("pk")[:1]
    answered = Turn.objects.filter(conversation=OuterRef("pk"), client_message_id=client_message_id)
    handed_off = Handoff.objects.filter(conversation=OuterRef("pk"))
    return (
        Conversation.objects.select_related("bot__workspace")
        .annotate(
            forwarded_message_id=Subquery(forwarded),
            answered=Exists(answered),
            handed_off=Exists(handed_off),
        )
        .get(pk=conversation_id)
    )


def _forwarded(*, owner: str, message: dict[str, Any]) -> VisitorMessageResult:
    return VisitorMessageResult(payload=muted_result_json(owner=owner), muted=True, message=message)


def _escalation_interrupted(*, result: TurnResult, conversation: Conversation) -> bool:
    """A replayed turn routed to a human whose handoff never opened (the process died, or the
    database failed, after the turn was stored): the repeated delivery opens it."""
    return (
        not result.created
        and result.turn.route_action == "open_handoff"
        and conversation.owner == Owner.BOT
        and not Handoff.objects.filter(turn_id=result.turn.pk).exists()
    )
