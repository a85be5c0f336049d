"""In headless Chromium: a curated answer taking over a question. The bot misses questions about
tandems; they are clustered; the admin attaches a curated answer to that gap cluster from the
analytics page; then the chat API, asked a paraphrase, answers with the curated answer (cited as
its source), and the analytics page counts that turn as curated."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from conversations.models import Conversation, CuratedAnswer
from conversations.pipeline.curated import CURATED_MODEL
from insights.models import GapCluster, GapClustering
from insights.services.gaps import gap_clustering_compute
from insights.services.rollups import turn_rollups_refresh
from tests.api.factories import bot_make, server_key_make
from tests.insights.helpers import browser_login, turn_answered
from tests.support.browser import artifact_path
from tests.support.knowledge import document_ingested

GUIDE = "# Rentals\n\nA day rental costs 25 euros and includes a helmet."
MISSED = [
    "Can I rent a tandem bike?",
    "Do you have tandem bikes for rent?",
    "Is it possible to rent a tandem?",
]
ANSWER = "Yes: tandems are rented at the Lyon shop only, for 40 euros a day."


@pytest.mark.browser
def test_a_curated_answer_attached_to_a_gap_cluster_takes_over_a_paraphrase(
    page: Page, admin_base: str
) -> None:
    bot = bot_make(name="Rental bot")
    document_ingested(workspace=bot.workspace, text=GUIDE, bots=[bot], filename="guide.md")
    conversation = Conversation.objects.create(bot=bot, channel="widget")
    for n, question in enumerate(MISSED):
        turn_answered(conversation, n, question, "not_found_in_context", 0.1)
    now = timezone.now()
    # Made here rather than requested: in a transactional test the request's task would go at once to
    # a session worker another test may have left running, which would race this direct call.
    clustering = GapClustering.objects.create(
        bot=bot, period_start=now - timedelta(days=1), period_end=now + timedelta(minutes=1)
    )
    assert gap_clustering_compute(clustering_id=clustering.pk)
    cluster = GapCluster.objects.get(clustering=clustering)
    assert cluster.size == 3 and cluster.covered_at is None
    raw, _ = server_key_make(bot.workspace)
    browser_login(page, admin_base, bot)

    # From the gap cluster on the analytics page to a curated answer attached to it.
    page.goto(f"{admin_base}/admin/insights/analyzedturn/analytics/{bot.pk}/")
    row = page.locator(f"#gap-cluster-{cluster.pk}")
    expect(row.locator(".gap-covered")).to_have_text("not yet")
    row.locator("a.gap-curate").click()
    expect(page.locator("#id_cluster")).to_have_value(str(cluster.pk))
    expect(page.locator("#id_bot")).to_have_value(str(bot.pk))
    expect(page.locator("#id_question")).to_have_value(cluster.label)
    page.fill("#id_answer", ANSWER)
    page.click("input[name=_save]")
    expect(page.locator(".messagelist")).to_contain_text("was added successfully")
    curated = CuratedAnswer.objects.get(bot=bot)
    assert curated.embedding and curated.embedding_model

    page.goto(f"{admin_base}/admin/insights/analyzedturn/analytics/{bot.pk}/")
    row = page.locator(f"#gap-cluster-{cluster.pk}")
    expect(row.locator(".gap-covered")).to_contain_text("by a curated answer")
    expect(row.locator("a.gap-curated")).to_have_text(curated.question)
    row.locator("a.gap-curated").click()  # the curated answer's page names its cluster
    expect(page.locator("#id_cluster")).to_have_value(str(cluster.pk))

    # A visitor's paraphrase, through the chat API: the curated answer, cited.
    asked = Conversation.objects.create(bot=bot, channel="api")
    response = page.request.post(
        f"{admin_base}/api/v1/conversations/{asked.pk}/turns",
        data={"message": "Could I rent a tandem bike?", "client_message_id": "visitor-1"},
        headers={"Authorization": f"Bearer {raw}"},
    )
    assert response.status == 200, response.text()
    body = response.json()
    assert (body["status"], body["answer"], body["model"]) == (
        "found_in_context",
        ANSWER,
        CURATED_MODEL,
    )
    assert [c["chunk_id"] for c in body["citations"]] == [f"curated:{curated.pk}"]

    turn_rollups_refresh()
    page.goto(f"{admin_base}/admin/insights/analyzedturn/analytics/{bot.pk}/")
    expect(page.locator("#curated-count")).to_have_attribute("data-value", "1")
    page.screenshot(path=artifact_path("insights-curated-analytics.png"), full_page=True)
    page.click("#curated-count")
    expect(page.locator("#result_list")).to_contain_text("Could I rent a tandem bike?")
    expect(page.locator("p.paginator")).to_contain_text("1 turn")
    page.screenshot(path=artifact_path("insights-curated-turns.png"), full_page=True)
