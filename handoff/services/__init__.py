"""The handoff's writes: the owner move itself (`moves`), the bot's hand-over and the wait's timeout
(`handover`), an agent's moves (`agent_moves`), messages (`messages`), a visitor's message (`receive`), the
bot's answer to messages an agent left unanswered (`pending`), agents' display names (`agents`)."""

from handoff.services.agent_moves import (
    ClaimResult,
    agent_message_post,
    handoff_claim,
    handoff_console_close,
    handoff_resolve,
    handoff_return_to_bot,
)
from handoff.services.agents import AgentProfileError, agent_profile_update
from handoff.services.handover import handoff_open, handoff_timeout
from handoff.services.messages import message_data, typing_signal
from handoff.services.moves import MUTED_OWNERS, HandoffError
from handoff.services.pending import handoff_pending_answer, handoff_unanswered_messages
from handoff.services.receive import (
    VisitorMessageResult,
    visitor_message_body,
    visitor_message_post,
    visitor_message_receive,
)

__all__ = [
    "MUTED_OWNERS",
    "AgentProfileError",
    "ClaimResult",
    "HandoffError",
    "VisitorMessageResult",
    "agent_message_post",
    "agent_profile_update",
    "handoff_claim",
    "handoff_console_close",
    "handoff_open",
    "handoff_pending_answer",
    "handoff_resolve",
    "handoff_return_to_bot",
    "handoff_timeout",
    "handoff_unanswered_messages",
    "message_data",
    "typing_signal",
    "visitor_message_body",
    "visitor_message_post",
    "visitor_message_receive",
]
