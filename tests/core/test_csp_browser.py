"""Under the Content-Security-Policy, in headless Chromium: the admin's pages (the bot page with its
inlines, preview, templates, import, Try it, the document upload) and the demo page with its widget
load without a single violation, and their inline styles still apply (the `page` fixture fails the
test on any violation)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from prompts.services.demo import demo_bot_ensure
from tests.support.browser import admin_login
from widget.services import demo_widget_ensure

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(180),
]

ADMIN_PAGES = (
    "/admin/",
    "/admin/bots/bot/",
    "/admin/bots/bot/{bot}/change/",
    "/admin/bots/bot/{bot}/preview/",
    "/admin/bots/bot/{bot}/templates/answer/",
    "/admin/bots/bot/{bot}/context/import/",
    "/admin/conversations/turn/try/{bot}/",
    "/admin/rag/document/",
    "/admin/rag/document/add/",
)


def test_admin_pages_and_the_demo_widget_run_under_the_csp(
    page: Page, admin_base: str, admin_user: object
) -> None:
    bot = demo_bot_ensure()
    demo_widget_ensure(bot=bot, origins=(admin_base,))
    admin_login(page, base_url=admin_base, username="admin", password="password")

    for path in ADMIN_PAGES:
        response = page.goto(admin_base + path.format(bot=bot.pk))
        assert response is not None and response.status == 200, path
        assert "script-src 'self'" in response.headers["content-security-policy"], path
        expect(page.locator("#content")).to_be_visible()
    # The bot pages' own inline styles apply (they carry the request's nonce).
    page.goto(f"{admin_base}/admin/bots/bot/{bot.pk}/preview/")
    prompt = page.locator(".parley-prompt").first
    assert prompt.evaluate("node => getComputedStyle(node).whiteSpace") == "pre-wrap"

    # The bot page's inlines still add rows (the admin's scripts run).
    page.goto(f"{admin_base}/admin/bots/bot/{bot.pk}/change/")
    group = page.locator(".inline-group").first
    add_row = group.locator(".add-row a")
    rows = group.locator("tr.form-row:not(.empty-form)")
    before = rows.count()
    add_row.click()
    expect(rows).to_have_count(before + 1)

    # The demo page: its styles and the widget's (shadow DOM <style>, admitted by the script's nonce).
    page.goto(f"{admin_base}/demo/")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(246, 243, 238)"
    launcher = page.locator("[data-parley-widget] button.launcher")
    expect(launcher).to_be_visible()
    assert launcher.evaluate("node => getComputedStyle(node).position") == "fixed"
    launcher.click()
    expect(page.locator("[data-parley-widget] #parley-panel")).to_be_visible()


def test_the_violation_recorder_sees_a_refused_inline_style(
    browser: object, live_server: object
) -> None:
    from tests.support.browser import csp_violations_record

    context = browser.new_context()  # type: ignore[attr-defined]
    violations = csp_violations_record(context)
    try:
        tab = context.new_page()
        tab.goto(f"{live_server.url}/admin/login/")  # type: ignore[attr-defined]
        tab.evaluate(
            "() => { const s = document.createElement('style');"
            " s.textContent = 'body{color:red}'; document.head.append(s); }"
        )
        tab.wait_for_timeout(200)
        assert tab.evaluate("getComputedStyle(document.body).color") != "rgb(255, 0, 0)"
    finally:
        context.close()
    assert any("style-src" in violation for violation in violations)
