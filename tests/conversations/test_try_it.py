"""The admin's Try-it console: the demo bot answers about the demo documents (ingested here through the real
ingestion service) with the offline provider and with the scripted OpenAI-compatible server; every stage shows.
The bot's admin page and the bot list link to it."""

from __future__ import annotations

import html
import json
import re

import pytest
from django.test import Client
from django.urls import reverse

from bots.models import Bot
from core.models import Membership
from prompts.services.demo import demo_bot_ensure
from rag.demo_content import demo_documents_ensure
from rag.ingestion import document_ingest
from rag.models import Chunk
from tests.support.factories import MembershipFactory
from tests.support.llm_server import Reply, ScriptedLLMServer

pytestmark = pytest.mark.django_db
QUESTION = "Can I charge the battery when it is below freezing?"


@pytest.fixture
def demo(settings) -> tuple[Bot, Client]:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    bot = demo_bot_ensure(workspace_slug="demo-try-it")
    for document in demo_documents_ensure(workspace=bot.workspace, bots=[bot]):
        assert document_ingest(document_id=str(document.pk), claim_id="try-it") == "ready"
    membership = MembershipFactory(workspace=bot.workspace, role=Membership.Role.OWNER)
    client = Client()
    client.force_login(membership.user)
    return bot, client


def _ask(client: Client, bot: Bot, provider: str) -> str:
    url = reverse("admin:conversations_turn_try", args=[bot.pk])
    assert client.get(url).status_code == 200
    response = client.post(url, {"question": QUESTION, "history": "", "provider": provider})
    assert response.status_code == 200
    return response.content.decode()


def test_demo_bot_answers_in_the_console_with_the_offline_provider(demo) -> None:
    bot, client = demo
    page = _ask(client, bot, "offline")
    assert "found_in_context" in page and "model offline" in page
    assert "0 degrees" in page  # the battery document's storage advice, in the answer or the chunks
    assert 'id="try-chunks"' in page and "battery-and-charging" in page.lower()
    assert 'id="try-prompt"' in page and "<citation id=" in page.replace("&lt;", "<")


def test_demo_bot_answers_in_the_console_with_the_scripted_server(
    demo, settings, llm: ScriptedLLMServer
) -> None:
    bot, client = demo
    settings.LLM_BASE_URL, settings.LLM_API_KEY = llm.base_url, "test-key"
    Bot.objects.filter(pk=bot.pk).update(llm_provider="openai", llm_model="scripted-model")
    cold = "Do not charge a battery below 0 degrees"
    chunk = Chunk.objects.get(document__workspace=bot.workspace, text__contains=cold)
    sentence = next(s for s in chunk.text.split(". ") if cold in s)
    reply = {
        "status": "found_in_context",
        "answer": "No: do not charge it below 0 °C.",
        "display_answer": True,
        "confidence_score": 0.92,
        "topic": "unknown",
        "suggested_topics": [],
        "understanding": "Cold charging.",
        "redirection_intent": None,
        "context_usage": [
            {"chunk": str(chunk.pk), "sentences": [sentence], "used_in_response": True}
        ],
    }
    llm.enqueue(Reply.json(reply))
    page = _ask(client, bot, "bot")
    assert "model scripted-model" in page and "do not charge it below 0 °C." in page
    assert f'<citation id="{chunk.pk}">' in page.replace("&lt;", "<").replace("&gt;", ">").replace(
        "&quot;", '"'
    )
    assert json.dumps(reply)[:40].replace('"', "&quot;") in page  # the raw output is shown
    assert str(chunk.pk) in json.dumps(
        llm.chat_requests()[0].messages
    )  # the chunk went into the prompt


def _href(page: str, anchor_id: str) -> str:
    match = re.search(rf'<a href="([^"]+)" id="{anchor_id}">Try it</a>', page)
    assert match, f"no #{anchor_id} link on the page"
    return html.unescape(match.group(1))


def test_the_bot_admin_links_to_the_console_and_the_link_answers(demo) -> None:
    bot, client = demo
    change_page = client.get(reverse("admin:bots_bot_change", args=[bot.pk]))
    assert change_page.status_code == 200
    url = _href(change_page.content.decode(), "bot-try-it")
    listing = client.get(reverse("admin:bots_bot_changelist")).content.decode()
    assert (
        f'<a href="{url}">Try it</a>' in listing
    )  # the bot list's column links to the same console

    console = client.get(url)
    assert console.status_code == 200 and f"Try it: {bot.name}" in console.content.decode()
    answered = client.post(
        url, {"question": QUESTION, "history": "", "provider": "offline"}
    ).content.decode()
    assert "found_in_context" in answered and "0 degrees" in answered
