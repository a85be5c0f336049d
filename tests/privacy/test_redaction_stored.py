"""Redaction where text is kept, opt-in per workspace: through the chat API with the scripted LLM,
the visitor's answer is the model's as written and the model reads the question as typed (unless
the workspace redacts before it too), while turns, audits, messages, feedback and the analytics
export keep placeholders."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from bots.models import Bot
from conversations.models import Conversation, Turn
from core.models import Workspace
from handoff.feedback import turn_feedback_record
from handoff.models import HandoffReason, Message, TurnFeedback
from handoff.services import handoff_open, visitor_message_post
from rag.models import Chunk
from tests.api.factories import bearer, server_key_make
from tests.insights.helpers import member_client
from tests.support.knowledge import document_ingested
from tests.support.llm_server import Reply, ScriptedLLMServer

SUPPORT = "Our support line is +33 6 98 76 54 32, open every day."
QUESTION = "I am anna.k@example.com, card 4532 0151 1283 0366: what is the support line?"


@pytest.fixture
def shop(db: None, settings: Any, llm: ScriptedLLMServer) -> tuple[Bot, str, Chunk]:
    settings.LLM_BASE_URL, settings.LLM_API_KEY = llm.base_url, "test-key"
    workspace = Workspace.objects.create(
        name="Redacting shop", slug="redacting-shop", redact_personal_data=True
    )
    bot = Bot.objects.create(
        workspace=workspace, name="Shop bot", llm_provider="openai", llm_model="scripted-model"
    )
    document_ingested(workspace=workspace, text=f"# Support\n\n{SUPPORT}\n", bots=[bot])
    raw, _ = server_key_make(workspace, scopes=("chat",))
    return bot, raw, Chunk.objects.get(document__workspace=workspace)


def _reply(chunk: Chunk) -> Reply:
    return Reply.json(
        {
            "status": "found_in_context",
            "answer": "Call +33 6 98 76 54 32, open every day.",
            "display_answer": True,
            "confidence_score": 0.9,
            "topic": "unknown",
            "suggested_topics": [],
            "understanding": "The visitor anna.k@example.com asks for the support line.",
            "redirection_intent": None,
            "context_usage": [
                {"chunk": str(chunk.pk), "sentences": [SUPPORT], "used_in_response": True}
            ],
        }
    )


def _turn(raw: str, bot: Bot, cid: str) -> dict[str, Any]:
    conversation = Conversation.objects.create(bot=bot)
    response = Client().post(
        f"/api/v1/conversations/{conversation.pk}/turns",
        {"message": QUESTION, "client_message_id": cid},
        content_type="application/json",
        **bearer(raw),
    )
    assert response.status_code == 200, response.content
    body: dict[str, Any] = response.json()
    return body


def test_stored_text_is_redacted_the_answer_and_the_llm_question_are_not(
    shop: tuple[Bot, str, Chunk], llm: ScriptedLLMServer
) -> None:
    bot, raw, chunk = shop
    llm.enqueue(_reply(chunk))
    body = _turn(raw, bot, "m1")

    assert "+33 6 98 76 54 32" in body["answer"]  # what the visitor reads now, untouched
    assert QUESTION in json.dumps(llm.chat_requests()[-1].messages, ensure_ascii=False)
    turn = Turn.objects.get(pk=body["turn_id"])
    assert turn.user_text == "I am [email], card [card]: what is the support line?"
    assert "[phone]" in turn.answer and "+33 6" not in turn.answer
    stored = json.dumps(
        [turn.raw_output, turn.attempts, turn.parsed_output, turn.understanding, turn.reply_text]
    )
    assert "anna.k@example.com" not in stored and "98 76 54 32" not in stored
    assert "[email]" in turn.understanding

    # A reload reads the stored turn: the history shows placeholders (docs/privacy.md).
    replay = _turn_again(raw, turn)
    assert "[phone]" in replay["answer"]


def _turn_again(raw: str, turn: Turn) -> dict[str, Any]:
    response = Client().post(
        f"/api/v1/conversations/{turn.conversation_id}/turns",
        {"message": QUESTION, "client_message_id": turn.client_message_id},
        content_type="application/json",
        **bearer(raw),
    )
    assert response.status_code == 200, response.content
    body: dict[str, Any] = response.json()
    return body


def test_redaction_before_the_llm_is_a_second_choice(
    shop: tuple[Bot, str, Chunk], llm: ScriptedLLMServer
) -> None:
    bot, raw, chunk = shop
    Workspace.objects.filter(pk=bot.workspace_id).update(redact_before_llm=True)
    llm.enqueue(_reply(chunk))
    _turn(raw, bot, "m2")
    sent = json.dumps(llm.chat_requests()[-1].messages, ensure_ascii=False)
    assert "anna.k@example.com" not in sent and "4532 0151" not in sent
    assert "I am [email], card [card]" in sent


def test_messages_feedback_and_the_export_are_redacted(shop: tuple[Bot, str, Chunk]) -> None:
    bot, _, _ = shop
    conversation = Conversation.objects.create(bot=bot, channel="widget")
    handoff_open(conversation_id=conversation.pk, reason=HandoffReason.VISITOR_REQUEST)
    posted = visitor_message_post(conversation_id=conversation.pk, text="call 06 12 34 56 78")
    assert posted["message"]["text"] == "call 06 12 34 56 78"  # relayed as written
    assert Message.objects.get(conversation=conversation).text == "call [phone]"

    # A turn stored before the workspace opted in: the export redacts it on the way out.
    turn = Turn.objects.create(
        conversation=conversation,
        client_message_id="old",
        user_text="my IBAN is DE89 3704 0044 0532 0130 00",
        answer="Noted: DE89 3704 0044 0532 0130 00.",
        status="found_in_context",
    )
    turn_feedback_record(turn_id=turn.pk, rating="down", comment="mail me: z@example.net")
    assert TurnFeedback.objects.get(turn=turn).comment == "mail me: [email]"
    client = member_client(bot)
    response = client.get(reverse("admin:insights_analyzedturn_changelist") + "?export=json")
    rows = json.loads(b"".join(response.streaming_content))  # type: ignore[attr-defined]
    exported = next(row for row in rows if row["id"] == str(turn.pk))
    assert exported["user_text"] == "my IBAN is [iban]" and exported["answer"] == "Noted: [iban]."
    assert "redact" not in exported


def test_a_workspace_that_does_not_opt_in_keeps_text_as_typed(
    shop: tuple[Bot, str, Chunk], llm: ScriptedLLMServer
) -> None:
    bot, raw, chunk = shop
    Workspace.objects.filter(pk=bot.workspace_id).update(redact_personal_data=False)
    llm.enqueue(_reply(chunk))
    body = _turn(raw, bot, "m3")
    assert Turn.objects.get(pk=body["turn_id"]).user_text == QUESTION
