"""Issue 51's layout at a 1,366 x 768 window, in headless Chromium: the bots list, Try it after a
question (its chunks table's Preview column included) and the analytics page scroll no way but down;
wide cells wrap, or truncate with their full text on hover."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from core.models import Membership
from insights.services.rollups import turn_rollups_refresh
from prompts.services.demo import demo_bot_ensure
from rag.demo_content import demo_documents_ensure
from tests.insights.seeding import turns_seed
from tests.support.browser import admin_login, artifact_path
from tests.support.factories import PASSWORD, BotFactory, MembershipFactory
from tests.support.knowledge import document_ingested_ready

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

QUESTION = "Can I charge the battery when it is below freezing?"
SIDEWAYS = "() => document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth"
# A list's own scroll box (the admin's `.results`) cuts its last columns off instead: measured too.
INNER = """() => [...document.querySelectorAll('.results, table')]
  .filter((e) => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible')
  .map((e) => `${e.tagName}#${e.id}.${e.className} ${e.scrollWidth} > ${e.clientWidth}`)"""
# The widest elements past the window's right edge, to name what overflows when the check fails.
CULPRITS = """() => [...document.querySelectorAll('body *')]
  .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
  .slice(0, 8).map((e) => `${e.tagName}#${e.id}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`)"""


def _fits(page: Page, name: str) -> None:
    page.screenshot(path=str(artifact_path(f"layout-1366-{name}.png")), full_page=False)
    sideways = page.evaluate(SIDEWAYS)
    assert sideways <= 0, f"{name}: {sideways}px wider than the window: {page.evaluate(CULPRITS)}"
    assert page.evaluate(INNER) == [], f"{name}: a box scrolls sideways"


def test_the_bots_list_try_it_and_analytics_fit_a_1366_window(
    browser: Browser, admin_base: str
) -> None:
    bot = demo_bot_ensure(workspace_slug="demo-layout-1366")
    for document in demo_documents_ensure(workspace=bot.workspace, bots=[bot]):
        document_ingested_ready(document)  # here, or by the session worker if it got there first
    for n in range(3):  # more rows in the list, some with long names
        BotFactory(workspace=bot.workspace, name=f"Support assistant for the after-sales team {n}")
    turns_seed(bot=bot, count=60, seed=5)
    turn_rollups_refresh()
    member = MembershipFactory(workspace=bot.workspace, role=Membership.Role.OWNER)
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    context.set_default_timeout(30_000)
    page = context.new_page()
    admin_login(page, base_url=admin_base, username=member.user.username, password=PASSWORD)

    page.goto(f"{admin_base}/admin/bots/bot/")
    expect(page.locator("#result_list")).to_be_visible()
    _fits(page, "bots-list")

    page.goto(f"{admin_base}/admin/conversations/turn/try/{bot.pk}/")
    page.fill("#id_question", QUESTION)
    page.select_option("#id_provider", "offline")
    page.click("input[name=ask]")
    expect(page.locator("#try-chunks tbody tr").first).to_be_visible(timeout=90_000)
    _fits(page, "try-it")
    preview = page.locator("#try-chunks tbody tr td.try-preview").first
    shown = preview.inner_text().strip()
    assert shown.endswith("…")  # truncated, the full text on hover
    full = " ".join((preview.get_attribute("title") or "").split())
    assert full.startswith(" ".join(shown.rstrip("…").split())) and len(full) > len(shown)

    page.goto(f"{admin_base}/admin/insights/analyzedturn/analytics/{bot.pk}/")
    expect(page.locator("#status-chart")).to_be_visible()
    _fits(page, "analytics")
