"""The widget alone in real headless Chromium against the real uvicorn server and Redis: host CSS, safe
Markdown, keyboard use, and its size budget. The whole story with the agent console is test_browser_story.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from django.utils import timezone
from playwright.sync_api import Browser, expect

from conversations.models import Conversation, Turn
from prompts.services.demo import demo_bot_ensure
from tests.handoff.pages import browser_context, widget_of, widget_open
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


def test_widget_resists_host_css_renders_markdown_safely_and_works_by_keyboard(
    browser: Browser, demo: str
) -> None:
    page = browser_context(browser).new_page()
    widget = widget_open(page, demo)
    widget.get_by_role("button", name="Talk to a human").click()  # creates the session
    expect(widget.locator(".status")).to_contain_text("Waiting")
    conversation = Conversation.objects.get(bot__name="Lumi")
    Conversation.objects.filter(pk=conversation.pk).update(owner="bot")
    Turn.objects.create(
        conversation=conversation,
        client_message_id="m1",
        user_text="battery?",
        completed_at=timezone.now(),
        status="found_in_context",
        route_action="show_answer",
        answer=XSS_ANSWER,
        retrieved_chunks=[
            {"chunk_id": "c1", "document_id": "d1", "title": "Battery guide", "page": 3}
        ],
        context_usage=[{"chunk": "c1", "sentences": [], "used_in_response": True}],
    )
    page.reload()
    widget = widget_of(page)

    # Keyboard only: Tab reaches the launcher, Enter opens, focus lands in the input, Escape closes.
    # (Once the widget has its configuration: before it, Enter has nothing to open.)
    expect(widget.locator("button.launcher")).to_have_attribute("aria-label", re.compile(r".+"))
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
    page.keyboard.press("Escape")  # the preview first, then the panel
    expect(widget.locator(".preview")).to_be_hidden()
    page.keyboard.press("Escape")
    expect(widget.locator("#parley-panel")).to_be_hidden()
    expect(widget.locator("button.launcher")).to_be_focused()

    # The host page forces Comic Sans on every button and div: the widget is untouched.
    font = widget.locator("button.launcher").evaluate("node => getComputedStyle(node).fontFamily")
    assert "Comic" not in font
    assert page.evaluate("getComputedStyle(document.querySelector('main')).fontFamily").startswith(
        "Georgia"
    )


def test_widget_script_stays_within_its_size_budget() -> None:
    import gzip
    from pathlib import Path

    source = (Path(__file__).resolve().parents[2] / "widget/static/widget/widget.js").read_bytes()
    assert len(gzip.compress(source, compresslevel=9)) < 30 * 1024
