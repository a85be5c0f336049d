"""In headless Chromium: the analytics page on seeded turns against a SQL recount, with its links and
"add as covered topic"; then a set made from turns, run by the real worker against two template
versions (the scripted LLM server answering), and the comparison read back."""

from __future__ import annotations

import re
from datetime import datetime, time, timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from conversations.models import Conversation, Turn
from insights.models import EvaluationRun, EvaluationSet
from insights.services.rollups import turn_rollups_refresh
from prompt_context.models import Topic
from prompts.engine.environment import ANSWER_TEMPLATE, template_default_source
from prompts.services.templates import template_version_save
from rag.models import Chunk
from tests.insights.helpers import browser_login, day_price_reply, turn_answered
from tests.insights.seeding import recount, turns_seed
from tests.support.browser import artifact_path
from tests.support.factories import BotFactory
from tests.support.knowledge import document_ingested
from tests.support.llm_server import ScriptedLLMServer

GUIDE = (
    "# Rentals\n\nA day rental costs 25 euros and includes a helmet.\n\n"
    "# Repairs\n\nFlat tyres are repaired while you wait."
)


def _figure(page: Page, selector: str) -> int:
    return int(page.locator(selector).get_attribute("data-value") or "-1")


@pytest.mark.browser
def test_the_analytics_page_matches_a_sql_recount_and_adds_a_covered_topic(
    page: Page, admin_base: str
) -> None:
    bot = BotFactory(name="Velo")
    turns_seed(bot=bot, count=90, seed=11)
    turn_rollups_refresh()
    browser_login(page, admin_base, bot)
    today = timezone.localdate()
    zone = timezone.get_current_timezone()
    expected = recount(
        bot=bot,
        start=datetime.combine(today - timedelta(days=29), time.min, tzinfo=zone),
        end=datetime.combine(today + timedelta(days=1), time.min, tzinfo=zone),
    )

    page.goto(f"{admin_base}/admin/bots/bot/{bot.pk}/change/")
    page.click("#bot-analytics")
    expect(page.locator("#insights-turns")).to_have_text(str(expected["turns"]))
    for status, n in expected["by_status"].items():
        assert _figure(page, f"#status-total-{status}") == n
    assert _figure(page, "#deflected-count") == expected["deflected"]
    assert _figure(page, "#feedback-rated") == expected["rated"]
    assert _figure(page, "#feedback-down") == expected["down"]
    assert _figure(page, "#reason-wrong") == expected["wrong"]
    assert _figure(page, "#confidence-9") == expected["confidence_top"]
    for bucket in range(10):
        assert _figure(page, f"#confidence-{bucket}") == expected["histogram"].get(bucket, 0)
    assert _figure(page, "#curated-count") == expected["curated"] > 0
    for kind, row in expected["escalations"].items():
        cells = page.locator(f"#escalation-{kind} td")
        assert int(cells.nth(1).locator("a").get_attribute("data-value") or -1) == row["n"]
        expect(cells.nth(2)).to_have_text(str(row["claimed"]))
        expect(cells.nth(5)).to_have_text(str(row["timeouts"]))
    for topic, n in expected["topics"].items():
        link = page.locator("#top-topics tr", has_text=topic).locator("a").first
        assert int(link.get_attribute("data-value") or -1) == n
    expect(page.locator("#status-chart rect")).not_to_have_count(0)
    page.screenshot(path=artifact_path("insights-analytics.png"), full_page=True)

    # A figure's link opens exactly the turns it counts.
    page.click("#status-total-not_found_in_context")
    expect(page.locator("p.paginator")).to_contain_text(
        f"{expected['by_status']['not_found_in_context']} turns"
    )
    page.go_back()

    row = page.locator("#suggested-topics tr", has_text="Helmets")
    assert int(row.locator("a").get_attribute("data-value") or 0) == expected["helmets"]
    row.locator("button.cover-topic").click()
    expect(page.locator(".messagelist")).to_contain_text("“Helmets” is now a covered topic")
    assert Topic.objects.get(bot=bot, name="Helmets").kind == Topic.Kind.COVERED
    expect(page.locator("#suggested-topics tr", has_text="Helmets")).to_contain_text(
        "already a topic"
    )


def _run(page: Page, base: str, evaluation_set: EvaluationSet, version: int) -> None:
    page.goto(f"{base}/admin/insights/evaluationset/")
    page.locator("tr", has_text=evaluation_set.name).locator("a", has_text="Run").click()
    page.select_option("#id_template_version", str(version))
    page.fill("#id_label", f"template v{version}")
    page.click("input[name=start]")
    expect(page.locator("#run-progress")).to_be_visible()
    expect(page.locator("#run-status")).to_have_text("completed", timeout=90_000)


@pytest.mark.browser
@pytest.mark.worker
@pytest.mark.timeout(240)
def test_a_set_made_from_turns_runs_against_two_template_versions_and_compares(
    page: Page, admin_base: str, celery_worker: str, llm: ScriptedLLMServer
) -> None:
    bot = BotFactory(name="Rental bot", llm_provider="openai")
    document_ingested(workspace=bot.workspace, text=GUIDE, bots=[bot], filename="guide.md")
    chunk = Chunk.objects.get(text__contains="25 euros")
    for n, question in enumerate(["How much is a day rental?", "Do you repair flat tyres?"]):
        conversation = Conversation.objects.create(bot=bot, channel="widget")
        turn_answered(conversation, n, question, "found_in_context", 0.9)
    turn_rollups_refresh()
    default = template_default_source(ANSWER_TEMPLATE)
    v1 = template_version_save(bot_id=bot.pk, kind="answer", source=default, note="shipped")
    v2 = template_version_save(
        bot_id=bot.pk, kind="answer", source=default + "\nAnswer tersely.", note="terse"
    )
    browser_login(page, admin_base, bot)

    # From the analytics page to its turns, and from the turns to a new set.
    page.goto(f"{admin_base}/admin/insights/analyzedturn/analytics/{bot.pk}/")
    page.click("#insights-turns")
    page.check("#action-toggle")
    page.select_option("select[name=action]", "add_to_evaluation_set")
    page.click("button[name=index]")
    page.fill("#id_new_set_name", "From real turns")
    page.click("input[name=apply]")
    expect(page.locator(".messagelist")).to_contain_text("2 cases added to From real turns")
    evaluation_set = EvaluationSet.objects.get(bot=bot, name="From real turns")
    assert sorted(evaluation_set.cases.values_list("expected_status", flat=True)) == [
        "found_in_context",
        "found_in_context",
    ]

    turns_before = Turn.objects.count()
    llm.enqueue(
        day_price_reply(chunk, "not_found_in_context"), day_price_reply(chunk, "found_in_context")
    )
    _run(page, admin_base, evaluation_set, v1.number)
    llm.enqueue(
        day_price_reply(chunk, "found_in_context"), day_price_reply(chunk, "found_in_context")
    )
    _run(page, admin_base, evaluation_set, v2.number)
    prompts = ["\n".join(m["content"] for m in r.messages) for r in llm.chat_requests()]
    assert ["Answer tersely" in prompt for prompt in prompts] == [False, False, True, True]
    assert Turn.objects.count() == turns_before  # a run reaches no visitor and no analytics

    earlier = page.locator("#compare-form option", has_text="template v1").get_attribute("value")
    page.select_option("#compare-form select[name=left]", earlier)
    page.click("#compare-form input[type=submit]")
    expect(page.locator("#compare-differences")).to_have_text("1 of 2 cases differ")
    expect(page.locator("#compare-status_accuracy")).to_contain_text("better")
    first = page.locator("#compare-cases tbody tr").first
    expect(first).to_have_class(re.compile("differs"))
    expect(first).to_contain_text("not_found_in_context")
    page.screenshot(path=artifact_path("insights-compare.png"), full_page=True)
    assert EvaluationRun.objects.filter(bot=bot, status="completed").count() == 2
