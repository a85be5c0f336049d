"""The handoff's writes: owner moves and messages (`moves`), a visitor's message (`receive`), the bot's
answer to messages an agent left unanswered (`pending`), agents' display names (`agents`)."""

from handoff.services.agents import AgentProfileError, agent_profile_update
from handoff.services.moves import (
    MUTED_OWNERS,
    ClaimResult,
    HandoffError,
    agent_message_post,
    handoff_claim,
    handoff_console_close,
    handoff_open,
    handoff_resolve,
    handoff_return_to_bot,
    handoff_timeout,
    message_data,
    typing_signal,
)
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
