"""In headless Chromium, an admin opens the demo bot's page, presses its visible "Try it" button and asks the demo
bot a question about a demo document: the console shows the routed answer with [n] markers (never the raw
citation tags) linked to a numbered list of its sources, says that no repair was needed, and lists the chunks."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from core.models import Membership
from prompts.services.demo import demo_bot_ensure
from tests.support.browser import admin_login, artifact_path
from tests.support.demo import demo_page_ingested
from tests.support.factories import PASSWORD, MembershipFactory


@pytest.mark.browser
@pytest.mark.timeout(120)
def test_an_admin_reaches_the_console_from_the_bot_page_and_asks_the_demo_bot(
    page: Page, admin_base: str
) -> None:
    bot = demo_bot_ensure(workspace_slug="demo-try-it-browser")
    demo_page_ingested(bot=bot, filename="orders-and-delivery.md")
    membership = MembershipFactory(workspace=bot.workspace, role=Membership.Role.OWNER)
    admin_login(page, base_url=admin_base, username=membership.user.username, password=PASSWORD)

    page.goto(f"{admin_base}/admin/bots/bot/{bot.pk}/change/")
    button = page.locator("#bot-try-it")
    expect(button).to_be_visible()
    button.click()
    page.wait_for_url(re.compile(rf".*/try/{bot.pk}/$"))
    page.fill("#id_question", "How many working days does a delivery to Belgium take?")
    page.select_option("#id_provider", "offline")
    page.click("input[name=ask]")

    answer = page.locator("#try-answer")
    expect(answer).to_contain_text("3 to 4")
    expect(answer).to_contain_text("[1]")  # the inline citation of the first chunk
    expect(answer).not_to_contain_text("citation")
    marker = answer.locator("a.try-marker").first
    source = page.locator(f"#try-source-{(marker.get_attribute('href') or '').split('-')[-1]}")
    expect(source).to_contain_text(re.compile("orders and delivery", re.IGNORECASE))
    marker.click()
    expect(page).to_have_url(re.compile(r"#try-source-\d+$"))
    expect(source).to_be_in_viewport()
    expect(page.locator("#try-repairs")).to_have_text("None: the output met the contract.")
    page.screenshot(path=str(artifact_path("admin-try-it-citations.png")), full_page=True)
    expect(page.locator("#try-chunks")).to_contain_text(
        re.compile("orders and delivery", re.IGNORECASE)
    )
