"""The widget's retries in headless Chromium against the real server (issue 27's cluster run relies on
them): a message whose first request got a proxy's 502 (the web process behind it died) is sent again
with the same client_message_id and answered once; a message whose stream expired, or whose answer was
interrupted, is sent again too, instead of resuming a stream that is gone."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Request, Route, expect

from conversations.models import Turn
from prompts.services.demo import demo_bot_ensure
from tests.handoff.pages import browser_context, widget_ask, widget_open
from widget.services import demo_widget_ensure

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker, pytest.mark.timeout(300)]

# The first answer of a session waits for the worker to load the embedding models.
ANSWER_TIMEOUT_MS = 90_000
TURNS = "**/api/v1/conversations/*/turns"


@pytest.fixture
def demo(live_api: str, celery_worker: str) -> Iterator[str]:
    demo_widget_ensure(bot=demo_bot_ensure(), origins=(live_api,))
    yield live_api


def _answered_once(widget, posts: list[Request]) -> None:  # type: ignore[no-untyped-def]
    bubble = widget.locator(".msg.bot").last
    expect(bubble.locator(".tools")).to_be_visible(timeout=ANSWER_TIMEOUT_MS)
    expect(bubble).not_to_contain_text("Something went wrong")
    ids = {json.loads(request.post_data or "{}")["client_message_id"] for request in posts}
    assert len(posts) == 2 and len(ids) == 1, posts  # sent twice, as one message
    [turn] = Turn.objects.all()
    assert turn.client_message_id in ids and turn.completed_at is not None


def test_a_message_that_got_a_proxys_502_is_sent_again_and_answered_once(
    browser: Browser, demo: str
) -> None:
    page = browser_context(browser).new_page()
    posts: list[Request] = []

    def first_one_lost(route: Route) -> None:
        posts.append(route.request)
        if len(posts) == 1:  # what nginx answers when the web process it chose has died
            route.fulfill(status=502, body="<html>502 Bad Gateway</html>", content_type="text/html")
        else:
            route.continue_()

    page.route(TURNS, first_one_lost)
    widget = widget_open(page, demo)
    widget_ask(widget, "How long does delivery take?")
    _answered_once(widget, posts)


@pytest.mark.parametrize("code", ["stream_expired", "stream_interrupted"])
def test_a_message_whose_stream_expired_is_sent_again_not_resumed(
    browser: Browser, demo: str, code: str
) -> None:
    """stream_interrupted: its runner never started or its worker died (streams.sse.supervision)."""
    page = browser_context(browser).new_page()
    posts: list[Request] = []
    resumes: list[Request] = []

    def first_stream_gone(route: Route) -> None:
        posts.append(route.request)
        if len(posts) == 1:  # a stream whose buffer the server no longer holds
            route.fulfill(
                status=200,
                headers={"Content-Type": "text/event-stream", "X-Parley-Stream-Id": "gone"},
                body=f'id: 1-0\nevent: error\ndata: {{"code": "{code}"}}\n\n',
            )
        else:
            route.continue_()

    page.route(TURNS, first_stream_gone)
    page.route("**/api/v1/streams/gone/events", lambda route: resumes.append(route.request))
    widget = widget_open(page, demo)
    widget_ask(widget, "How long does delivery take?")
    _answered_once(widget, posts)
    assert resumes == []
