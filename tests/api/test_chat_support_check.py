"""The support check through the chat API (issue 50): an LLM answer stating a fact its passages do not
hold never reaches the visitor, whatever the answer quotes; what was removed, and why, is on the turn."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from bots.models import Bot
from conversations.models import Turn
from rag.models import Chunk
from tests.api.factories import bot_make, widget_key_make, widget_session_open
from tests.support.knowledge import document_ingested
from tests.support.llm_server import Reply, ScriptedLLMServer

pytestmark = pytest.mark.django_db

ORIGIN = "https://shop.example"
POLICY = (
    "# Remote work\n\nRemote work needs manager approval 48 hours ahead. Employees may work remotely "
    "up to two days a week."
)
QUOTED = "Remote work needs manager approval 48 hours ahead."


def _bot(settings: Any, llm: ScriptedLLMServer, **fields: Any) -> tuple[Bot, Chunk]:
    settings.LLM_BASE_URL, settings.LLM_API_KEY = llm.base_url, "test-key"
    bot = bot_make()
    Bot.objects.filter(pk=bot.pk).update(
        llm_provider="openai", llm_model="scripted-model", **fields
    )
    document_ingested(workspace=bot.workspace, text=POLICY, bots=[bot], filename="remote.md")
    return Bot.objects.get(pk=bot.pk), Chunk.objects.get(text__contains="48 hours")


def _reply(chunk: Chunk, answer: str) -> dict[str, Any]:
    return {
        "status": "found_in_context",
        "answer": answer,
        "display_answer": True,
        "confidence_score": 0.9,
        "topic": "unknown",
        "suggested_topics": [],
        "understanding": "Remote work approval.",
        "redirection_intent": None,
        "context_usage": [
            {"chunk": str(chunk.pk), "sentences": [QUOTED], "used_in_response": True}
        ],
    }


def _ask(bot: Bot, question: str) -> tuple[dict[str, Any], Turn]:
    client = Client()
    session = widget_session_open(client, widget_key_make(bot).key, origin=ORIGIN)
    response = client.post(
        f"/api/v1/conversations/{session['conversation_id']}/turns",
        {"message": question, "client_message_id": "m-1"},
        content_type="application/json",
        headers=session["headers"],
    )
    assert response.status_code == 200, response.content
    return response.json(), Turn.objects.get(conversation_id=session["conversation_id"])


def test_a_wrong_delay_quoting_the_right_sentence_never_reaches_the_visitor(
    settings: Any, llm: ScriptedLLMServer
) -> None:
    bot, chunk = _bot(settings, llm)
    llm.enqueue(Reply.json(_reply(chunk, "Remote work needs manager approval 72 hours ahead.")))

    body, turn = _ask(bot, "How long ahead do I need approval for remote work?")

    assert "72" not in body["answer"]
    assert body["answer"] == turn.answer and turn.status == "not_found_in_context"
    [removed] = [r for r in turn.repairs if r["code"].startswith("unsupported_")][:1]
    assert removed["code"] == "unsupported_quantity_removed" and "72" in removed["message"]


def test_an_appended_claim_is_removed_and_the_supported_sentence_kept(
    settings: Any, llm: ScriptedLLMServer
) -> None:
    bot, chunk = _bot(settings, llm)
    answer = f"{QUOTED} You can work remotely five days a week."
    llm.enqueue(Reply.json(_reply(chunk, answer)))

    body, turn = _ask(bot, "How long ahead do I need approval for remote work?")

    assert body["answer"] == QUOTED
    assert "five" not in turn.answer and turn.status == "found_in_context"
    codes = [r["code"] for r in turn.repairs]
    assert "unsupported_quantity_removed" in codes


def test_the_issues_appended_clause_in_one_sentence_is_caught(
    settings: Any, llm: ScriptedLLMServer
) -> None:
    bot, chunk = _bot(settings, llm)
    answer = (
        "Remote work needs manager approval 48 hours ahead, and you can work remotely five days "
        "a week."
    )
    llm.enqueue(Reply.json(_reply(chunk, answer)))

    body, turn = _ask(bot, "How long ahead do I need approval for remote work?")

    assert "five" not in body["answer"] and turn.status == "not_found_in_context"


def test_a_relaxed_bot_shows_the_answer_marked_with_its_statement(
    settings: Any, llm: ScriptedLLMServer
) -> None:
    bot, chunk = _bot(
        settings,
        llm,
        rag_strictness="relaxed",
        relaxation_statement="Some of this is not from our documents.",
    )
    llm.enqueue(Reply.json(_reply(chunk, "Remote work needs manager approval 72 hours ahead.")))

    body, turn = _ask(bot, "How long ahead do I need approval for remote work?")

    assert body["answer"].startswith("⚠ Remote work needs manager approval 72 hours ahead.")
    assert body["answer"].endswith("Some of this is not from our documents.")
    assert "unsupported_answer_marked" in [r["code"] for r in turn.repairs]


def test_a_correct_answer_passes_untouched(settings: Any, llm: ScriptedLLMServer) -> None:
    bot, chunk = _bot(settings, llm)
    answer = "You need your manager's approval 48 hours ahead, and you may work remotely two days a week."
    llm.enqueue(Reply.json(_reply(chunk, answer)))

    body, turn = _ask(bot, "How long ahead do I need approval for remote work?")

    assert body["answer"] == answer and turn.status == "found_in_context"
    assert not [r for r in turn.repairs if r["code"].startswith("unsupported_")]
