"""`turn_answer`: one visitor message in a conversation, answered, routed and audited (DESIGN.md, "One chat turn").

Idempotent on the client message id: a second delivery returns the stored turn with no model
call. It answers whatever it is asked: whether the bot may answer at all (an agent owns the
conversation, or is awaited) is decided once, above, by `handoff.services.visitor_message_receive`,
which calls it. An answer routed to a human only comes back as `escalation_requested`: opening the
handoff (the owner move, its event, the queue entry, the timeout) is the handoff app's, in one
transaction.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from conversations.adapters import llm_endpoint_for_bot
from conversations.models import Conversation, Turn
from conversations.pipeline.events import PipelineEmitter
from conversations.pipeline.results import turn_result_json
from conversations.pipeline.retrieve import scope_for
from conversations.pipeline.run import answer_record, answer_run
from conversations.services import HistoryMessage, turn_complete, turn_start
from core.llm.types import LLMEndpoint
from core.redaction import pii_redact
from prompts.engine import BotSettings, HistoryTurn
from prompts.selectors import bot_settings_get

HISTORY_TURNS = 6
# Passed as `endpoint` to use the bot's own LLM settings (the default).
BOT_ENDPOINT: Any = object()


@dataclass(frozen=True)
class TurnResult:
    """`payload` is the API's body (its `owner` is the owner when the turn started);
    `escalation_requested` means this turn's answer was routed to a human (never on a replay)."""

    payload: dict[str, Any]
    turn: Turn
    created: bool
    escalation_requested: bool = False


def turn_answer(
    *,
    conversation_id: uuid.UUID,
    client_message_id: str,
    message: str,
    external_user_id: str | None = None,
    emitter: PipelineEmitter | None = None,
    endpoint: LLMEndpoint | None = BOT_ENDPOINT,
    history_extra: Sequence[HistoryMessage] = (),
) -> TurnResult:
    """`history_extra`: messages of the conversation outside the bot's turns (the handoff app's), merged
    into the history by time."""
    # The workspace rides along (its privacy settings): no query of its own.
    conversation = Conversation.objects.select_related("bot__workspace").get(pk=conversation_id)
    workspace = conversation.bot.workspace
    redact = workspace.redact_personal_data
    bot = bot_settings_get(bot_id=conversation.bot_id)
    started = turn_start(
        conversation_id=conversation.pk,
        client_message_id=client_message_id,
        user_text=message,
        redact=redact,
    )
    if not started.created and started.turn.completed_at is not None:
        return _replayed(started.turn, conversation, bot)  # an earlier delivery answered it
    # A new turn, or one an earlier delivery started and never answered (its worker lost, the database
    # gone past the pool's wait: found by tests/faults): answer it now. Should that delivery still be
    # running, turn_complete keeps whichever answer is recorded first.
    turn = started.turn
    history, misses = _history(conversation.pk, exclude=turn.pk, extra=history_extra)
    scope = scope_for(
        workspace_id=bot.workspace_id,
        bot_id=bot.bot_id,
        conversation_id=str(conversation.pk),
        external_user_id=conversation.external_user_id or external_user_id,
    )
    run = answer_run(
        bot=bot,
        # The model reads the question as typed unless the workspace redacts before it too.
        question=pii_redact(message) if workspace.redact_before_llm else message,
        history=history,
        scope=scope,
        endpoint=llm_endpoint_for_bot(bot=bot) if endpoint is BOT_ENDPOINT else endpoint,
        emitter=emitter,
        previous_misses=misses,
    )
    record = answer_record(run=run)
    if not turn_complete(
        turn=turn,
        record=record,
        injection_threshold=run.rules.injection_threshold,
        redact=redact,
        watched=run.watched,
    ):
        # A racing delivery recorded its answer first: it owns the turn's consequences (the live
        # announcement, the handoff), so this one reports a replay of what it recorded.
        return _replayed(Turn.objects.get(pk=turn.pk), conversation, bot)
    payload = turn_result_json(
        turn=turn, owner=conversation.owner, explainability=bot.explainability
    )
    if run.route.open_handoff:
        payload["redirection_intent"] = run.route.redirection_intent or "human_escalation"
    return TurnResult(payload, turn, created=True, escalation_requested=run.route.open_handoff)


def _replayed(turn: Turn, conversation: Conversation, bot: BotSettings) -> TurnResult:
    payload = turn_result_json(
        turn=turn, owner=conversation.owner, explainability=bot.explainability
    )
    if turn.route_action == "open_handoff":
        payload["redirection_intent"] = "human_escalation"
    return TurnResult(payload, turn, created=False)


def _history(
    conversation_id: uuid.UUID, *, exclude: uuid.UUID, extra: Sequence[HistoryMessage]
) -> tuple[list[HistoryTurn], int]:
    """The recent exchange, oldest first, and how many not_found answers end the conversation so far.

    Besides the bot's turns it holds the messages the caller passes (a human agent's replies and the
    visitor's messages to them), so a conversation returned to the bot goes on with them.
    """
    rows = list(
        Turn.objects.filter(conversation_id=conversation_id, completed_at__isnull=False)
        .exclude(pk=exclude)
        .order_by("-created_at")
        .values_list("created_at", "user_text", "answer", "status")[:HISTORY_TURNS]
    )
    misses = 0
    for _, _, _, status in rows:
        if status != Turn.Status.NOT_FOUND_IN_CONTEXT:
            break
        misses += 1
    entries: list[tuple[datetime, int, HistoryTurn]] = []
    for created_at, user_text, answer, _ in rows:
        entries += [
            (created_at, 0, HistoryTurn(role="user", content=user_text)),
            (created_at, 1, HistoryTurn(role="assistant", content=answer)),
        ]
    for message in extra:
        turn = HistoryTurn(
            role="assistant" if message.role == "assistant" else "user", content=message.content
        )
        entries.append((message.created_at, 0, turn))
    entries.sort(key=lambda entry: (entry[0], entry[1]))
    return [turn for _, _, turn in entries[-2 * HISTORY_TURNS :]], misses
