"""The widget's refusals in headless Chromium against the real uvicorn server (issue 26): a message past
the 4,000-character limit is counted, blocked and kept; a message the server refuses stays in the
input with the server's reason in the visitor's language; a page the key does not allow logs why in
the console. Screenshots: test-artifacts/widget-limit-*.png."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Route, expect

from api.contracts import MAX_QUERY_CHARS
from conversations.models import Turn
from prompts.services.demo import demo_bot_ensure
from tests.handoff.pages import browser_context, widget_of, widget_open
from tests.support.browser import artifact_path
from widget.services import demo_widget_ensure

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(180)]

LONG = ("Ma batterie ne tient plus la charge après deux ans d'usage quotidien. " * 80)[:5000]


def test_a_5000_character_message_is_counted_blocked_and_kept(
    browser: Browser, demo_site: str
) -> None:
    page = browser_context(browser).new_page()
    widget = widget_open(page, demo_site)
    box, send, count = (
        widget.locator("textarea"),
        widget.locator("button.send"),
        widget.locator(".count"),
    )

    box.fill("x" * 3500)
    expect(count).to_be_hidden()  # far from the limit: nothing to count yet
    box.fill("x" * 3700)
    expect(count).to_have_text("3,700 / 4,000 characters")
    expect(send).to_be_enabled()

    box.fill(LONG)
    expect(count).to_have_text(
        "Your message has 5,000 characters; the limit is 4,000. Shorten it to send it."
    )
    expect(send).to_be_disabled()
    expect(box).to_have_attribute("aria-invalid", "true")
    box.press("Enter")
    expect(box).to_have_value(LONG)  # not sent, not wiped
    assert widget.locator(".msg.visitor").count() == 0
    assert not Turn.objects.exists()
    page.screenshot(path=artifact_path("widget-limit-blocked.png"))

    box.fill(LONG[:MAX_QUERY_CHARS])
    expect(send).to_be_enabled()


def test_a_message_the_server_refuses_stays_with_its_reason_in_the_visitors_language(
    browser: Browser, demo_site: str
) -> None:
    """A widget that does not know the limit (an older copy cached by the host page, here its
    config answered without the limit): the server refuses, in French on a French page."""
    page = browser_context(browser).new_page()

    def without_limit(route: Route) -> None:
        response = route.fetch()
        body = response.json()
        body["message_max_chars"] = 10 * MAX_QUERY_CHARS
        route.fulfill(response=response, body=json.dumps(body))

    page.route("**/api/v1/widget/config", without_limit)
    page.goto(f"{demo_site}/demo/?lang=fr")
    widget = widget_of(page)
    widget.locator("button.launcher").click()
    box = widget.locator("textarea")
    box.fill(LONG)
    box.press("Enter")

    refusal = widget.locator(".msg.refused")
    expect(refusal).to_contain_text("Votre message n'a pas été envoyé")
    expect(refusal).to_contain_text("4000 caractères")  # Django REST framework's own French
    expect(box).to_have_value(LONG)
    assert widget.locator(".msg.visitor").count() == 0
    assert not Turn.objects.exists()
    page.screenshot(path=artifact_path("widget-limit-refused-fr.png"))


def test_a_page_the_key_does_not_allow_logs_the_origin_and_the_keys_admin_page(
    browser: Browser, live_api: str
) -> None:
    key = demo_widget_ensure(bot=demo_bot_ensure(), origins=("https://shop.example",))
    page = browser_context(browser).new_page()
    errors: list[str] = []

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            errors.append(message.text)

    page.on("console", on_console)
    page.goto(f"{live_api}/demo/")
    expected = (
        f"Parley widget: This widget key does not allow the origin {live_api}. Add {live_api} "
        f"to the key's allowed origins on its admin page: /admin/api/widgetkey/{key.pk}/change/"
    )
    for _ in range(100):
        if expected in errors:
            break
        page.wait_for_timeout(100)
    assert expected in errors, errors
    assert widget_of(page).count() == 0  # no launcher that could not work
