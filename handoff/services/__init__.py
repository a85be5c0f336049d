"""The handoff's writes: owner moves and messages (`moves`), and a visitor's message (`receive`)."""

from handoff.services.moves import (
    MUTED_OWNERS,
    ClaimResult,
    HandoffError,
    agent_message_post,
    handoff_claim,
    handoff_open,
    handoff_resolve,
    handoff_return_to_bot,
    handoff_timeout,
    message_data,
    typing_signal,
)
from handoff.services.receive import (
    VisitorMessageResult,
    visitor_message_body,
    visitor_message_post,
    visitor_message_receive,
)

__all__ = [
    "MUTED_OWNERS",
    "ClaimResult",
    "HandoffError",
    "VisitorMessageResult",
    "agent_message_post",
    "handoff_claim",
    "handoff_open",
    "handoff_resolve",
    "handoff_return_to_bot",
    "handoff_timeout",
    "message_data",
    "typing_signal",
    "visitor_message_body",
    "visitor_message_post",
    "visitor_message_receive",
]
