"""The admin's rough edges of issue 26, in headless Chromium at 1400, 1024 and 800 px: the bot page's
object tools never cover its heading, the analytics tables fit their cards, the chart labels are
readable, counts and reasons read as words (no emoji, no codes), and the index leads to each bot's
analytics and evaluation. Screenshots: test-artifacts/admin-layout-<width>-*.png."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from insights.services.rollups import turn_rollups_refresh
from tests.insights.helpers import browser_login
from tests.insights.seeding import turns_seed
from tests.support.browser import artifact_path
from tests.support.factories import BotFactory

pytestmark = [pytest.mark.browser]

WIDTHS = (1400, 1024, 800)
# Emoji and pictographs, which render as empty boxes where no emoji font is installed.
EMOJI = re.compile("[\u2600-\u27bf\U0001f000-\U0001faff\ufe0f]")
# Every table of an analytics card, as wide as it needs against as wide as its card is inside.
OVERFLOWS = """() => [...document.querySelectorAll(".insights-grid section")].flatMap((card) =>
  [...card.querySelectorAll("table")].map((table) => ({
    card: card.id, table: table.id, need: table.scrollWidth,
    room: card.clientWidth - parseFloat(getComputedStyle(card).paddingLeft)
      - parseFloat(getComputedStyle(card).paddingRight),
    right: table.getBoundingClientRect().right, cardRight: card.getBoundingClientRect().right,
  })))"""
# The smallest rendered height of a chart's axis labels, in CSS pixels.
SMALLEST_LABEL = """() => Math.min(...[...document.querySelectorAll(".insights-chart text")]
  .map((t) => t.getBoundingClientRect().height))"""


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def _at_width(browser: Browser, width: int) -> Page:
    context = browser.new_context(viewport={"width": width, "height": 900})
    context.set_default_timeout(20_000)
    return context.new_page()


def test_bot_page_analytics_and_index_read_well_at_three_widths(
    browser: Browser, admin_base: str
) -> None:
    bot = BotFactory(name="Velo")
    turns_seed(bot=bot, count=90, seed=11)
    turn_rollups_refresh()
    for width in WIDTHS:
        page = _at_width(browser, width)
        browser_login(page, admin_base, bot)

        # The index leads to the bot's analytics and evaluation runs.
        shortcuts = page.locator("#insights-shortcuts")
        expect(shortcuts).to_contain_text("Velo")
        expect(shortcuts.get_by_role("link", name="Evaluation").first).to_have_attribute(
            "href", re.compile(rf"/admin/insights/evaluationrun/\?bot__id__exact={bot.pk}$")
        )
        shortcuts.get_by_role("link", name="Analytics").first.click()
        expect(page.locator("#insights-turns")).to_be_visible()

        # Analytics: every table inside its card, labels readable, words rather than emoji or codes.
        page.screenshot(path=artifact_path(f"admin-layout-{width}-analytics.png"), full_page=True)
        tables = page.evaluate(OVERFLOWS)
        assert {t["table"] for t in tables} >= {"escalations", "feedback-reasons"}
        for table in tables:
            assert table["need"] <= table["room"] + 1, (width, table)
            assert table["right"] <= table["cardRight"] + 1, (width, table)
        assert page.evaluate(SMALLEST_LABEL) >= 10, width
        text = page.locator("#content-main").inner_text()
        assert not EMOJI.search(text), EMOJI.findall(text)
        escalations = page.locator("#escalations tbody td:first-child").all_inner_texts()
        assert escalations and all(" " in label or label.istitle() for label in escalations)
        assert not any("_" in label for label in escalations), escalations
        expect(page.locator("#feedback-up")).to_contain_text("helpful")

        # The bot page: its tools sit clear of the title and the bot's name.
        page.goto(f"{admin_base}/admin/bots/bot/{bot.pk}/change/")
        tools = page.locator(".object-tools")
        expect(tools.locator("#bot-try-it")).to_be_visible()
        page.screenshot(path=artifact_path(f"admin-layout-{width}-bot.png"))
        for heading in ("#content > h1", "#content > h2"):
            box = page.locator(heading).bounding_box()
            assert box is not None, heading
            for item in tools.locator("li").all():
                item_box = item.bounding_box()
                assert item_box is not None
                assert not _overlap(box, item_box), (width, heading, item.inner_text())
        page.context.close()
