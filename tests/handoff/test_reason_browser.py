"""Issue 26's walk in headless Chromium: two questions the bot cannot answer, then "I want to talk to a
human" typed in the widget. The agent console files it as "Asked for a human" (not "Repeated
misses") in the queue and in the context pack, with the last question the bot tried to answer as its
question, also after the visitor typed more while waiting; the analytics name it in words too."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import Browser, expect

from bots.models import Bot
from handoff.models import Handoff
from insights.selectors.analytics import analytics_get
from insights.selectors.scope import AnalyticsScope
from prompts.services.demo import demo_bot_ensure
from tests.handoff.pages import agent_page, browser_context, widget_ask, widget_open
from tests.support.browser import artifact_path
from widget.services import demo_widget_ensure

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker, pytest.mark.timeout(300)]

MISSES = ("Do you sell helmets for children?", "Do you sell a child seat for the rear rack?")
ASK_HUMAN = "I want to talk to a human"
WHILE_WAITING = "Ist jemand da?"
# A session's first answer may wait for the worker to load the embedding model (no warm-up in tests).
FIRST_ANSWER_TIMEOUT_MS = 90_000


@pytest.fixture
def demo(live_api: str, celery_worker: str) -> Iterator[Bot]:
    """The demo bot without documents (every question misses), its widget on the demo page."""
    bot = demo_bot_ensure()
    demo_widget_ensure(bot=bot, origins=(live_api,))
    yield bot


def test_an_explicit_request_after_misses_reads_asked_for_a_human_everywhere(
    browser: Browser, live_api: str, demo: Bot
) -> None:
    visitor = browser_context(browser).new_page()
    widget = widget_open(visitor, live_api)
    for n, question in enumerate(MISSES, start=1):
        widget_ask(widget, question)
        expect(widget.locator(".msg.bot .tools")).to_have_count(n, timeout=FIRST_ANSWER_TIMEOUT_MS)
    widget.locator("textarea").fill(ASK_HUMAN)
    widget.locator("textarea").press("Enter")
    expect(widget.locator(".status")).to_contain_text("Waiting", timeout=30_000)
    widget.locator("textarea").fill(WHILE_WAITING)
    widget.locator("textarea").press("Enter")
    expect(widget.locator(".msg.visitor").last).to_contain_text(WHILE_WAITING)

    agent = agent_page(browser, live_api, username="alice-reasons", workspaces=[demo.workspace])
    row = agent.locator("#queue button").first
    expect(row.locator(".reason")).to_have_text("Asked for a human")
    expect(row.locator(".question")).to_have_text(MISSES[-1])
    row.click()
    expect(agent.locator("#context dd.reason")).to_have_text("Asked for a human")
    expect(agent.locator("#context dd.question")).to_have_text(MISSES[-1])
    agent.screenshot(path=artifact_path("agent-console-asked-for-a-human.png"))

    handoff = Handoff.objects.get(conversation__bot=demo)
    scope = AnalyticsScope(
        bot_id=str(demo.pk),
        start=handoff.opened_at - timedelta(hours=1),
        end=timezone.now() + timedelta(hours=1),
        channel="",
    )
    assert [row["kind"] for row in analytics_get(scope=scope).escalations] == ["asked"]


def test_a_request_for_a_human_as_the_first_message_fills_the_agents_context_panel(
    browser: Browser, live_api: str, demo: Bot
) -> None:
    """Issue 51: "I want to talk to a human" alone (a guard catches it, nothing is retrieved) showed
    "—" for the row's question and the panel's question, understanding, topic and confidence."""
    visitor = browser_context(browser).new_page()
    widget = widget_open(visitor, live_api)
    widget.locator("textarea").fill(ASK_HUMAN)
    widget.locator("textarea").press("Enter")
    expect(widget.locator(".status")).to_contain_text("Waiting", timeout=FIRST_ANSWER_TIMEOUT_MS)

    agent = agent_page(browser, live_api, username="alice-only-asked", workspaces=[demo.workspace])
    row = agent.locator("#queue button").first
    expect(row.locator(".reason")).to_have_text("Asked for a human")
    expect(row.locator(".question")).to_have_text(ASK_HUMAN)
    row.click()
    context = agent.locator("#context")
    expect(context.locator("dd.question")).to_have_text(ASK_HUMAN)
    for field in ("understanding", "topic", "confidence"):
        expect(context.locator(f"dd.{field}")).not_to_have_text("—")
    expect(context.locator("dd.understanding")).to_contain_text("human")
    agent.screenshot(path=artifact_path("agent-console-only-asked-for-a-human.png"))
