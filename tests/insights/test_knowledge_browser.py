"""In headless Chromium: an FAQ candidate from a resolved handoff is edited and approved; the worker
ingests it as a document of the bot, and the bot answers from it: in Try it, and to a visitor through
the chat API (offline provider)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from conversations.models import Conversation
from core.models import Workspace
from insights.models import FaqCandidate
from insights.services.knowledge import faq_candidates_collect
from rag.models import Document
from tests.api.factories import server_key_make
from tests.insights.helpers import browser_login, resolved_handoff
from tests.insights.test_knowledge import ANSWER, QUESTION
from tests.support.browser import artifact_path
from tests.support.factories import BotFactory
from tests.support.knowledge import document_ingested
from tests.support.processes import wait_for


@pytest.mark.browser
@pytest.mark.worker
@pytest.mark.timeout(240)
def test_an_approved_faq_candidate_becomes_what_the_bot_answers(
    page: Page, admin_base: str, celery_worker: str
) -> None:
    workspace = Workspace.objects.create(name="Rentals", slug="rentals-browser")
    bot = BotFactory(workspace=workspace, name="Rental bot")
    document_ingested(
        workspace=workspace, text="# Repairs\n\nFlat tyres are fixed while you wait.", bots=[bot]
    )
    resolved_handoff(bot=bot, question=QUESTION, answer=ANSWER)
    assert faq_candidates_collect() == 1
    browser_login(page, admin_base, bot)

    page.goto(f"{admin_base}/admin/insights/faqcandidate/")
    page.locator("#result_list tr", has_text="Can I rent a tandem bike").locator("th a").click()
    page.fill("#id_answer", "Tandems are rented at the Lyon shop only: 40 euros a day.")
    page.click("#faq-approve")
    expect(page.locator(".messagelist")).to_contain_text("being ingested")
    candidate = FaqCandidate.objects.get()
    assert candidate.status == "approved" and candidate.document_id is not None
    wait_for(
        lambda: Document.objects.filter(pk=candidate.document_id, status="ready").exists(),
        timeout=90,
        what="the worker to ingest the FAQ entry",
    )

    page.goto(f"{admin_base}/admin/conversations/turn/try/{bot.pk}/")
    page.fill("#id_question", "Do you rent tandem bikes?")
    page.select_option("#id_provider", "offline")
    page.click("input[name=ask]")
    expect(page.locator("#try-answer")).to_contain_text("40 euros")
    expect(page.locator("#try-chunks")).to_contain_text("FAQ: Can I rent a tandem bike")
    page.screenshot(path=artifact_path("insights-faq-answer.png"), full_page=True)

    # And a visitor asking through the chat API gets the same answer, citing the FAQ document.
    raw, _ = server_key_make(workspace)
    conversation = Conversation.objects.create(bot=bot, channel="api")
    response = page.request.post(
        f"{admin_base}/api/v1/conversations/{conversation.pk}/turns",
        data={"message": "Do you rent tandem bikes?", "client_message_id": "visitor-1"},
        headers={"Authorization": f"Bearer {raw}"},
    )
    assert response.status == 200, response.text()
    body = response.json()
    assert body["status"] == "found_in_context" and "40 euros" in body["answer"]
    assert any(c["document_id"] == str(candidate.document_id) for c in body["citations"])
