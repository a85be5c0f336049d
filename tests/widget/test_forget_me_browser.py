"""The widget's "Forget me" in headless Chromium against the real server: the browser keeps one
random visitor id across reloads and sends it with each new conversation; "Forget me" erases the
visitor's conversation (their words are then in no pg_dump and no Valkey key) and starts over
under a new visitor id."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from conversations.models import Conversation
from prompts.services.demo import demo_bot_ensure
from tests.handoff.pages import browser_context, widget_ask, widget_open
from tests.privacy.on_disk import pg_dump_holding, valkey_keys_holding, valkey_uncompressed
from tests.privacy.planted import plant
from widget.services import demo_widget_ensure

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker, pytest.mark.timeout(300)]

# The first answer of a session waits for the worker to load the embedding models.
ANSWER_TIMEOUT_MS = 90_000


@pytest.fixture
def demo(live_api: str, celery_worker: str) -> Iterator[str]:
    demo_widget_ensure(bot=demo_bot_ensure(), origins=(live_api,))
    yield live_api


@pytest.fixture
def uncompressed() -> Iterator[None]:
    yield from valkey_uncompressed()


def test_forget_me_erases_the_visitors_conversation_and_starts_a_new_visitor_id(
    browser: Browser, demo: str, uncompressed: None
) -> None:
    page = browser_context(browser).new_page()
    widget = widget_open(page, demo)
    planted = plant()
    widget_ask(widget, f"How long does delivery take to {planted}?")
    expect(widget.locator(".msg.bot").last.locator(".tools")).to_be_visible(
        timeout=ANSWER_TIMEOUT_MS
    )
    visitor_id = page.evaluate(
        "Object.entries(localStorage).find(([k]) => k.startsWith('parley-visitor:'))[1]"
    )
    [conversation] = Conversation.objects.all()
    assert conversation.widget_visitor_id == visitor_id
    page.reload()  # the same browser: the same visitor id
    widget = widget_open(page, demo)
    assert visitor_id == page.evaluate(
        "Object.entries(localStorage).find(([k]) => k.startsWith('parley-visitor:'))[1]"
    )
    assert pg_dump_holding([planted]) == [planted]

    page.once("dialog", lambda dialog: dialog.accept())
    widget.locator("button.forget").click()
    expect(widget.locator(".msg.system").last).to_contain_text("Your conversations were erased.")
    expect(widget.locator(".msg.visitor")).to_have_count(0)
    conversation.refresh_from_db()
    assert conversation.widget_visitor_id == "" and conversation.visitor_id == ""
    assert pg_dump_holding([planted, visitor_id]) == []
    assert valkey_keys_holding([planted]) == []

    # The next message starts a new conversation under a new visitor id.
    widget_ask(widget, "Do you ship abroad?")
    expect(widget.locator(".msg.bot").last.locator(".tools")).to_be_visible(
        timeout=ANSWER_TIMEOUT_MS
    )
    fresh = Conversation.objects.exclude(pk=conversation.pk).get()
    assert fresh.widget_visitor_id and fresh.widget_visitor_id != visitor_id
