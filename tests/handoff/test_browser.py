"""The widget and the agent console in real headless Chromium against the real uvicorn server and Redis.

Two browser contexts: a visitor on the demo page and an agent in the console.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone
from playwright.sync_api import Browser, BrowserContext, Page, expect

from conversations.models import Conversation, Turn
from handoff.selectors import AGENTS_GROUP
from prompts.services.demo import demo_bot_ensure
from tests.support.browser import admin_login, artifact_path
from tests.support.factories import PASSWORD, MembershipFactory, UserFactory
from widget.services import demo_widget_ensure

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(180)]


@pytest.fixture
def demo(live_api: str) -> Iterator[str]:
    bot = demo_bot_ensure()
    demo_widget_ensure(bot=bot, origins=(live_api,))
    yield live_api


XSS_ANSWER = (
    '**Bold** claim [1] <img src=x onerror="window.__xss=1"> '
    "<script>window.__xss=2</script> [link](javascript:alert(1))"
)


def _context(browser: Browser) -> BrowserContext:
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    context.set_default_timeout(15_000)
    return context


def _widget(page: Page):  # type: ignore[no-untyped-def]
    return page.locator("[data-parley-widget]")


def _open_widget(page: Page, base: str) -> None:
    page.goto(f"{base}/demo/")
    launcher = _widget(page).locator("button.launcher")
    launcher.click()
    expect(_widget(page).locator("#parley-panel")).to_be_visible()


def _agent_page(browser: Browser, base: str, bot) -> Page:  # type: ignore[no-untyped-def]
    agent = UserFactory(username="alice", first_name="", is_staff=True)
    agent.groups.add(Group.objects.get_or_create(name=AGENTS_GROUP)[0])
    MembershipFactory(user=agent, workspace=bot.workspace)
    page = _context(browser).new_page()
    admin_login(page, base_url=base, username="alice", password=PASSWORD)
    page.goto(f"{base}/agent/")
    return page


def test_visitor_asks_for_a_human_agent_claims_replies_and_returns_to_bot(browser: Browser, demo: str) -> None:
    bot = demo_bot_ensure()
    agent = _agent_page(browser, demo, bot)
    expect(agent.locator("#queue")).to_contain_text("Nobody is waiting")

    visitor = _context(browser).new_page()
    _open_widget(visitor, demo)
    widget = _widget(visitor)
    expect(widget.locator(".msg.bot").first).to_contain_text("I am Lumi")
    widget.get_by_role("button", name="Talk to a human").click()
    expect(widget.locator(".status")).to_contain_text("Waiting for an agent")

    # The queue updates live (SSE), with the wait time.
    entry = agent.locator("#queue button").first
    expect(entry).to_contain_text("Lumi")
    expect(entry.locator(".wait")).to_have_text(re.compile(r"\d+:\d\d"))
    entry.click()
    agent.get_by_role("button", name="Claim").click()
    expect(agent.locator("#owner")).to_contain_text("agent: alice")
    expect(widget.locator(".log")).to_contain_text("An agent joined the chat")
    expect(agent.locator("#events")).to_contain_text("waiting_agent → agent by alice")

    agent.fill("#reply-text", "Hello, I am Alice <img src=x onerror=window.__xss=1>")
    started = time.monotonic()
    agent.press("#reply-text", "Enter")
    expect(widget.locator(".msg.agent")).to_contain_text("Hello, I am Alice <img src=x onerror=window.__xss=1>")
    assert time.monotonic() - started < 3  # well within a second on loopback; generous for a busy CI box
    assert visitor.evaluate("window.__xss") is None
    agent.fill("#reply-text", "typing")  # the typing indicator reaches the widget
    expect(widget.locator(".typing")).to_contain_text("typing")
    agent.fill("#reply-text", "")

    widget.locator("#parley-panel").screenshot(path=str(artifact_path("widget.png")))
    agent.screenshot(path=str(artifact_path("agent-console.png")))

    # Reload: the history survives, through the visitor token in localStorage.
    visitor.reload()
    _widget(visitor).locator("button.launcher").click()
    expect(_widget(visitor).locator(".msg.agent")).to_contain_text("Hello, I am Alice")

    agent.get_by_role("button", name="Return to bot").click()
    expect(_widget(visitor).locator(".log")).to_contain_text("chatting with the assistant again")
    conversation = Conversation.objects.get(bot=bot)
    assert conversation.owner == "bot"
    assert list(conversation.owner_events.values_list("to_owner", flat=True)) == ["waiting_agent", "agent", "bot"]


def test_widget_resists_host_css_renders_markdown_safely_and_works_by_keyboard(browser: Browser, demo: str) -> None:
    page = _context(browser).new_page()
    _open_widget(page, demo)
    widget = _widget(page)
    widget.get_by_role("button", name="Talk to a human").click()  # creates the session
    expect(widget.locator(".status")).to_contain_text("Waiting")
    conversation = Conversation.objects.get(bot__name="Lumi")
    Conversation.objects.filter(pk=conversation.pk).update(owner="bot")
    Turn.objects.create(
        conversation=conversation, client_message_id="m1", user_text="battery?", completed_at=timezone.now(),
        status="found_in_context", route_action="show_answer",
        answer=XSS_ANSWER,
        retrieved_chunks=[{"chunk_id": "c1", "document_id": "d1", "title": "Battery guide", "page": 3}],
    )  # fmt: skip
    page.reload()
    widget = _widget(page)

    # Keyboard only: Tab reaches the launcher, Enter opens, focus lands in the input, Escape closes.
    for _ in range(10):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement?.dataset?.parleyWidget !== undefined"):
            break
    page.keyboard.press("Enter")
    expect(widget.locator("textarea")).to_be_focused()
    bot_answer = widget.locator(".msg.bot").last
    expect(bot_answer.locator("strong")).to_have_text("Bold")
    expect(bot_answer).to_contain_text('<img src=x onerror="window.__xss=1">')
    assert bot_answer.locator("img, script, a[href^=javascript]").count() == 0
    assert page.evaluate("window.__xss") is None
    bot_answer.locator("button.cite").first.click()
    expect(widget.locator(".preview")).to_contain_text("Battery guide")
    expect(widget.locator(".preview")).to_contain_text("page 3")
    page.keyboard.press("Escape")
    expect(widget.locator("#parley-panel")).to_be_hidden()
    expect(widget.locator("button.launcher")).to_be_focused()

    # The host page forces Comic Sans on every button and div: the widget is untouched.
    font = widget.locator("button.launcher").evaluate("node => getComputedStyle(node).fontFamily")
    assert "Comic" not in font
    assert page.evaluate("getComputedStyle(document.querySelector('main')).fontFamily").startswith("Georgia")


def test_widget_script_stays_within_its_size_budget() -> None:
    import gzip
    from pathlib import Path

    source = (Path(__file__).resolve().parents[2] / "widget/static/widget/widget.js").read_bytes()
    assert len(gzip.compress(source, compresslevel=9)) < 30 * 1024
