"""Reusable browser fixtures: headless Debian Chromium driven by Playwright, the live server's address
for a walk through the admin, and a logged-in admin page.

Registered as a pytest plugin in tests/conftest.py. Screenshots go to test-artifacts/ (see `artifact_path`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Page,
    expect,
    sync_playwright,
)
from pytest_django.live_server_helper import LiveServer

from core.permissions import workspace_admins_group_ensure
from sources.website.render import CHROMIUM as CHROMIUM
from sources.website.render import CHROMIUM_ARGS as RENDER_ARGS

# The renderer's Chromium and flags (sources.website.render), less its rule that resolves no host: the
# browser tests reach the live server by its address.
CHROMIUM_ARGS = [arg for arg in RENDER_ARGS if not arg.startswith("--host-resolver-rules")]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
# Playwright's expect() waits up to this long: generous for a loaded 2-core machine, still bounded.
EXPECT_TIMEOUT_MS = 20_000


def artifact_path(name: str) -> Path:
    """Where a test keeps a screenshot or other artefact."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS / name


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"browser tests need Debian's chromium at {CHROMIUM}: apt-get install chromium")
    # Playwright's sync API runs an event loop in this thread; Django's ORM calls made by the test
    # itself (fixtures, assertions) are still synchronous, so allow them explicitly.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    expect.set_options(timeout=EXPECT_TIMEOUT_MS)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield launched
        finally:
            launched.close()


def csp_violations_record(context: BrowserContext) -> list[str]:
    """The Content-Security-Policy violations of every page of this context, as Chromium reports them
    in the console (a refused script or style leaves the page subtly broken, not failing)."""
    violations: list[str] = []

    def on_console(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text:
            violations.append(f"{message.location.get('url', '')}: {message.text}")

    context.on("console", on_console)
    return violations


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A fresh page; the test fails if any page it opened broke the Content-Security-Policy."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    context.set_default_timeout(20_000)
    violations = csp_violations_record(context)
    new_page = context.new_page()
    try:
        yield new_page
    finally:
        context.close()
    assert not violations, "\n".join(violations)


@pytest.fixture
def admin_base(live_server: LiveServer, transactional_db: None) -> str:
    """The live server's base URL for a walk through the admin, on a transactional database (the
    server's thread reads what the test writes), with the workspace admins' group in place: an earlier
    transactional test's flush removed the one the migrations made, and members get their admin
    permissions through it."""
    workspace_admins_group_ensure()
    return str(live_server.url)


def admin_login(page: Page, *, base_url: str, username: str, password: str) -> None:
    """Log in through the admin's own login form."""
    page.goto(f"{base_url}/admin/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("input[type=submit]")
    page.wait_for_url(re.compile(r".*/admin/$"))
