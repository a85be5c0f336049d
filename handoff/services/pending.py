"""After a return to the bot: the visitor's messages the agent left unanswered are answered by the bot,
once, through the bot's branch of the one entry point (`receive.bot_answer`).

The turn's client message id is derived from the handoff (``handoff/<id>``): a '/' is outside the
chat API's client message id alphabet, so no visitor's id collides with it, and the turn's unique
(conversation, client_message_id) makes a repeated task replay the turn instead of answering twice.
The messages then point at the turn (one conditional UPDATE), which carries them from then on.
"""

from __future__ import annotations

import uuid

from django.db.models import Max

from handoff.models import Handoff, Message
from handoff.selectors import PENDING_ANSWER_PREFIX
from handoff.services.moves import Owner
from handoff.services.receive import VisitorMessageResult, bot_answer


def handoff_unanswered_messages(*, handoff: Handoff) -> list[Message]:
    """The visitor's messages of this handoff after the agent's last reply, not yet answered by the bot."""
    window = Message.objects.filter(
        conversation_id=handoff.conversation_id, created_at__gte=handoff.opened_at
    )
    if handoff.closed_at is not None:
        window = window.filter(created_at__lte=handoff.closed_at)
    last_reply = window.filter(role=Message.Role.AGENT).aggregate(at=Max("created_at"))["at"]
    pending = window.filter(role=Message.Role.VISITOR, answered_by__isnull=True)
    if last_reply is not None:
        pending = pending.filter(created_at__gt=last_reply)
    return list(pending.order_by("created_at"))


def handoff_pending_answer(*, handoff_id: uuid.UUID) -> VisitorMessageResult | None:
    """The bot's answer to what the visitor asked the agent in vain; None when nothing is pending, or
    when the conversation is no longer the bot's (the visitor asked for a human again: the messages
    wait for that agent)."""
    handoff = (
        Handoff.objects.select_related("conversation__bot")
        .filter(pk=handoff_id, outcome=Handoff.Outcome.RETURNED)
        .first()
    )
    if handoff is None:
        return None
    pending = handoff_unanswered_messages(handoff=handoff)
    conversation = handoff.conversation
    if not pending or conversation.owner != Owner.BOT:
        return None
    ids = [message.pk for message in pending]
    received = bot_answer(
        conversation=conversation,
        client_message_id=f"{PENDING_ANSWER_PREFIX}{handoff.pk}",
        text="\n\n".join(message.text for message in pending),
        external_user_id=conversation.external_user_id or None,
        history_exclude=ids,
        pending_answer=True,
    )
    if received.turn is not None:
        Message.objects.filter(pk__in=ids, answered_by__isnull=True).update(
            answered_by=received.turn
        )
    return received
