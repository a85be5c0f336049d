"""Browser helpers of the widget and console tests: contexts, the widget on the demo page, a logged-in agent."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect

from core.models import Membership, Workspace
from tests.support.browser import EXPECT_TIMEOUT_MS as TIMEOUT_MS
from tests.support.browser import admin_login
from tests.support.factories import PASSWORD, MembershipFactory, UserFactory


def browser_context(browser: Browser) -> BrowserContext:
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    context.set_default_timeout(TIMEOUT_MS)
    return context


def widget_of(page: Page) -> Locator:
    return page.locator("[data-parley-widget]")


def widget_open(page: Page, base: str) -> Locator:
    page.goto(f"{base}/demo/")
    widget = widget_of(page)
    widget.locator("button.launcher").click()
    expect(widget.locator("#parley-panel")).to_be_visible()
    return widget


def widget_ask(widget: Locator, question: str) -> Locator:
    """Sends a question; returns the bot's answer bubble's text (the last bot message)."""
    widget.locator("textarea").fill(question)
    widget.locator("textarea").press("Enter")
    expect(widget.locator(".msg.visitor").last).to_contain_text(question)
    return widget.locator(".msg.bot").last.locator(".md").first


def agent_make(*, username: str, workspaces: list[Workspace]) -> Any:
    """A staff user with the agent role in these workspaces."""
    agent = UserFactory(username=username, first_name="", is_staff=True)
    for workspace in workspaces:
        MembershipFactory(user=agent, workspace=workspace, role=Membership.Role.AGENT)
    return agent


def agent_page(browser: Browser, base: str, *, username: str, workspaces: list[Workspace]) -> Page:
    """A new agent, member of these workspaces, logged in on /agent/ in a browser context of its own."""
    agent_make(username=username, workspaces=workspaces)
    page = browser_context(browser).new_page()
    admin_login(page, base_url=base, username=username, password=PASSWORD)
    page.goto(f"{base}/agent/")
    return page
