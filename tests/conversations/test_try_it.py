"""The admin's Try-it console: the demo bot answers about the demo documents (ingested here through the real
ingestion service) with the offline provider and with the scripted OpenAI-compatible server; every stage shows.
The bot's admin page and the bot list link to it."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from bots.models import Bot
from conversations.models import Turn
from conversations.pipeline.results import turn_citations
from core.models import Membership
from prompts.services.demo import demo_bot_ensure
from rag.demo_content import demo_documents_ensure
from rag.ingestion import document_ingest
from rag.models import Chunk, Document
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
    assert 'id="try-prompt"' in page and 'class="try-marker"' in _answer_html(page)


def _cold_charging_scripted(
    bot: Bot, settings: Any, llm: ScriptedLLMServer, *, answer: str
) -> Chunk:
    """The demo bot on the scripted model, whose next answer is `answer`, quoting the demo's sentence on
    charging in the cold; returns that sentence's chunk."""
    settings.LLM_BASE_URL, settings.LLM_API_KEY = llm.base_url, "test-key"
    Bot.objects.filter(pk=bot.pk).update(llm_provider="openai", llm_model="scripted-model")
    cold = "Do not charge a battery below 0 degrees"
    chunk = Chunk.objects.get(document__workspace=bot.workspace, text__contains=cold)
    sentence = next(s for s in chunk.text.split(". ") if cold in s)
    reply = {
        "status": "found_in_context",
        "answer": answer,
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
    return chunk


def test_demo_bot_answers_in_the_console_with_the_scripted_server(
    demo, settings, llm: ScriptedLLMServer
) -> None:
    bot, client = demo
    chunk = _cold_charging_scripted(bot, settings, llm, answer="No: do not charge it below 0 °C.")
    page = _ask(client, bot, "bot")
    assert "model scripted-model" in page and "do not charge it below 0 °C." in page
    rank = _chunk_rank(page, str(chunk.pk))
    answer = _answer_html(page)
    # The citation is an [n] marker linked to the numbered source, not the raw tag; the one source
    # used is 1, as the widget numbers it, whatever its rank in the chunks table.
    assert "citation" not in html.unescape(answer)
    assert '<a class="try-marker" href="#try-source-1"' in answer and "[1]" in answer
    source = re.search(r'<li id="try-source-1" value="1">(.*?)</li>', page, re.S)
    assert source and "Battery and charging" in html.unescape(source.group(1))
    assert f"(chunk #{rank} below)" in source.group(1)
    # The LLM listed one chunk of the retrieved ones: each other one was added, said in words.
    repairs = re.findall(r'<li class="try-repair">(.*?)</li>', page, re.S)
    assert repairs and all(
        "Every retrieved chunk appears in context_usage." in html.unescape(r) for r in repairs
    )
    assert not any(str(chunk.pk) in r for r in repairs) and "was missing; added as unused" in page
    assert "the output met the contract" not in page
    raw_start = '{"status": "found_in_context", "answer": "No: do not charge'
    assert raw_start.replace('"', "&quot;") in page  # the raw output is shown
    assert str(chunk.pk) in json.dumps(
        llm.chat_requests()[0].messages
    )  # the chunk went into the prompt


def test_citations_are_numbered_as_the_widget_numbers_them_not_by_rank(
    demo, settings, llm: ScriptedLLMServer
) -> None:
    """Issue 51: an answer using the chunks ranked 2 and 3 showed [2], [3] in Try it where the widget
    shows 1 and 2 (conversations.pipeline.results.citation_numbers, the one rule)."""
    bot, client = demo
    ranked = re.findall(
        r"<tr><td>(\d+)</td><td><code>([0-9a-f-]+)</code>", _ask(client, bot, "offline")
    )
    ids = {int(rank): chunk_id for rank, chunk_id in ranked}
    assert {2, 3} <= set(ids)
    settings.LLM_BASE_URL, settings.LLM_API_KEY = llm.base_url, "test-key"
    Bot.objects.filter(pk=bot.pk).update(llm_provider="openai", llm_model="scripted-model")
    texts = {rank: Chunk.objects.get(pk=ids[rank]).text.split(". ")[0] for rank in (2, 3)}
    reply = {
        "status": "found_in_context",
        "answer": f"{texts[2]}. {texts[3]}.",
        "display_answer": True,
        "confidence_score": 0.9,
        "topic": "unknown",
        "suggested_topics": [],
        "understanding": "Cold charging.",
        "redirection_intent": None,
        "context_usage": [
            {"chunk": ids[rank], "sentences": [texts[rank]], "used_in_response": True}
            for rank in (2, 3)
        ],
    }
    llm.enqueue(Reply.json(reply))
    page = _ask(client, bot, "bot")
    assert _chunk_rank(page, ids[2]) == 2 and _chunk_rank(page, ids[3]) == 3  # the same retrieval
    answer = _answer_html(page)
    assert re.findall(r'href="#try-source-(\d+)"', answer) == ["1", "2"]
    assert re.findall(r">\[(\d+)\]</a>", answer) == ["1", "2"]
    assert re.findall(r'<li id="try-source-(\d+)" value="(\d+)">', page) == [("1", "1"), ("2", "2")]
    assert "(chunk #2 below)" in page and "(chunk #3 below)" in page
    # The widget's numbers for the same answer: the citations' n of the turn the chat API would store.
    turn = Turn(
        status=Turn.Status.FOUND_IN_CONTEXT,
        route_action="show_answer",
        retrieved_chunks=[
            {"chunk_id": ids[rank], "document_id": "d", "title": "t"} for rank in sorted(ids)
        ],
        context_usage=reply["context_usage"],
    )
    assert [(c["n"], c["chunk_id"]) for c in turn_citations(turn=turn)] == [
        (1, ids[2]),
        (2, ids[3]),
    ]


def _answer_html(page: str) -> str:
    match = re.search(r'<div class="parley-answer" id="try-answer">(.*?)</div>', page, re.S)
    assert match, "no answer on the page"
    return match.group(1)


def _chunk_rank(page: str, chunk_id: str) -> int:
    """The chunk's rank in the console's chunks table."""
    match = re.search(rf"<tr><td>(\d+)</td><td><code>{chunk_id}</code>", page)
    assert match, f"chunk {chunk_id} is not in the chunks table"
    return int(match.group(1))


def test_an_answer_that_met_the_contract_says_so_and_numbers_its_sources(demo) -> None:
    bot, client = demo
    page = _ask(client, bot, "offline")

    answer = _answer_html(page)
    markers = [int(n) for n in re.findall(r'href="#try-source-(\d+)"', answer)]
    assert markers and "citation" not in html.unescape(answer)
    for rank in markers:  # every marker has its numbered source
        assert f'<li id="try-source-{rank}" value="{rank}">' in page
    assert '<li class="try-repair-none">None: the output met the contract.</li>' in page


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


def test_a_bot_that_knows_no_document_says_so_in_try_it_and_on_its_page(demo) -> None:
    """Issue 51: a bot given no document answers "not found" to everything with nothing saying why."""
    bot, client = demo
    try_it = reverse("admin:conversations_turn_try", args=[bot.pk])
    bot_page = reverse("admin:bots_bot_change", args=[bot.pk])
    for url in (try_it, bot_page):  # the demo bot has its documents: no notice
        assert 'id="bot-no-documents"' not in client.get(url).content.decode()

    bare = Bot.objects.create(workspace=bot.workspace, name="Bare")
    # The workspace has documents, given to the demo bot only: the new bot knows none of them.
    for url in (
        reverse("admin:conversations_turn_try", args=[bare.pk]),
        bot_page.replace(str(bot.pk), str(bare.pk)),
    ):
        page = client.get(url).content.decode()
        notice = re.search(r'<ul class="messagelist" id="bot-no-documents">(.*?)</ul>', page, re.S)
        assert notice, url
        text = " ".join(html.unescape(re.sub(r"<[^>]+>", "", notice.group(1))).split())
        assert "This bot knows no document" in text and "upload documents" in text
        assert reverse("admin:rag_document_add") in notice.group(1)
    page = client.post(
        reverse("admin:conversations_turn_try", args=[bare.pk]),
        {"question": QUESTION, "history": "", "provider": "offline"},
    ).content.decode()
    assert 'id="bot-no-documents"' in page and "not_found_in_context" in page

    document = Document.objects.filter(workspace=bot.workspace).first()
    assert document is not None
    document.bots.add(bare)
    assert (
        'id="bot-no-documents"'
        not in client.get(bot_page.replace(str(bot.pk), str(bare.pk))).content.decode()
    )


def test_the_console_shows_a_sentence_the_support_check_removed_and_why(
    demo, settings, llm: ScriptedLLMServer
) -> None:
    bot, client = demo
    answer = "No: do not charge it below 0 °C. Charging takes 11 hours in the cold."
    _cold_charging_scripted(bot, settings, llm, answer=answer)

    page = html.unescape(_ask(client, bot, "bot"))

    repairs = re.search(r'<ul id="try-repairs">(.*?)</ul>', page, re.S)
    assert repairs and "unsupported_quantity_removed" in repairs.group(1)
    assert "Charging takes 11 hours in the cold." in repairs.group(1)
    assert "11 hours" not in _answer_html(page)
