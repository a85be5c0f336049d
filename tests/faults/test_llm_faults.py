"""The LLM endpoint misbehaving under a streamed chat turn, through the real uvicorn server, Celery worker and
`openai` client: 500s, a 429 with Retry-After, a stream that stalls, and a connection reset mid-answer.

Each stream ends with its answer or an error event, exactly once; the turn is answered (recorded) all the same;
the client reads no event twice. /healthz does not probe the LLM (a paid remote API, probed by every load
balancer tick): the outage shows on the answer instead (its model names the offline fallback), and health
stays ok throughout."""

from __future__ import annotations

import threading

import pytest

from conversations.models import Conversation, Turn
from tests.faults.conftest import (
    ANSWER,
    Shop,
    health,
    invariants_check,
    stream_outcome,
    turn_streamed,
)
from tests.support.llm_server import Reply, ScriptedLLMServer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker, pytest.mark.timeout(120)]


def _answered(shop: Shop, llm: ScriptedLLMServer, message_id: str) -> tuple[str, dict, Turn]:
    conversation = Conversation.objects.create(bot=shop.bot)
    followed = turn_streamed(shop, conversation=conversation, client_message_id=message_id)
    name, body = stream_outcome(followed)
    turn = Turn.objects.get(conversation=conversation, client_message_id=message_id)
    assert turn.completed_at is not None  # no lost turn
    if name == "tool_end":
        assert body["answer"] == turn.answer and body["status"] == turn.status
    assert health(shop.base)[0] == 200  # the LLM is not part of health
    invariants_check()
    return name, body, turn


def test_500s_are_retried_and_the_answer_arrives(shop: Shop, llm: ScriptedLLMServer) -> None:
    llm.enqueue(
        Reply.error(500, "upstream exploded"),
        Reply.error(503, "busy"),
        Reply(content=shop.answer_json),
    )
    name, body, turn = _answered(shop, llm, "m-500")
    assert name == "tool_end" and body["answer"] == ANSWER
    assert turn.model == "scripted-model" and len(llm.chat_requests()) == 3


def test_500s_past_the_retries_fall_back_to_the_offline_answer(
    shop: Shop, llm: ScriptedLLMServer
) -> None:
    llm.enqueue(*[Reply.error(500, "upstream exploded")] * 3)  # LLM_MAX_RETRIES=2: three attempts
    name, body, turn = _answered(shop, llm, "m-500-all")
    assert name == "tool_end" and body["answer"]
    assert turn.model.startswith("offline-fallback")


def test_a_429_waits_for_its_retry_after(shop: Shop, llm: ScriptedLLMServer) -> None:
    llm.enqueue(Reply.rate_limited("1"), Reply(content=shop.answer_json))
    name, body, _ = _answered(shop, llm, "m-429")
    assert name == "tool_end" and body["answer"] == ANSWER
    first, second = llm.chat_requests()
    assert second.at - first.at >= 1.0  # Retry-After honoured


def test_a_stalled_stream_times_out_and_the_turn_is_still_answered(
    shop: Shop, llm: ScriptedLLMServer
) -> None:
    never = threading.Event()
    stalled = Reply(content=shop.answer_json, pause_after=6, resume=never)
    llm.enqueue(stalled)
    try:
        name, _, turn = _answered(shop, llm, "m-stall")
    finally:
        never.set()  # free the server's thread
    assert name in ("tool_end", "error")
    assert turn.model.startswith("offline-fallback") or name == "error"


def test_a_connection_reset_mid_stream_ends_the_stream_cleanly(
    shop: Shop, llm: ScriptedLLMServer
) -> None:
    llm.enqueue(Reply(content=shop.answer_json, reset_after=6))
    name, _, turn = _answered(shop, llm, "m-reset")
    assert name in ("tool_end", "error")
    assert turn.model.startswith("offline-fallback") or name == "error"
