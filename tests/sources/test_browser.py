"""In headless Chromium: an admin adds a website source on a local site, presses "Sync now", watches the
progress bar reach its end, and the widget answers a question the site answers, citing the page with a
link to its URL (the session's worker syncs and ingests; the demo bot answers offline)."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Browser, expect

from prompts.services.demo import demo_bot_ensure
from rag.models import Document
from sources.models import Source
from tests.api.conftest import live_api
from tests.handoff.pages import browser_context, widget_ask, widget_open
from tests.sources.website.site import Page, TestSite, html
from tests.support.browser import admin_login, artifact_path
from tests.support.factories import PASSWORD, UserFactory
from tests.support.processes import wait_for
from widget.services import demo_widget_ensure

__all__ = ["live_api"]  # the uvicorn server fixture, used by name below

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.browser,
    pytest.mark.worker,
    pytest.mark.timeout(300),
]

FILTER = (
    "Replace the AquaPure ceramic filter cartridge every 180 days, or sooner when the water tastes"
    " of chalk. Unscrew the old cartridge anticlockwise and rinse the new one for one minute."
)


def test_an_admin_syncs_a_website_and_the_widget_cites_its_page(
    browser: Browser, live_api: str, celery_worker: str
) -> None:
    bot = demo_bot_ensure()
    demo_widget_ensure(bot=bot, origins=(live_api,))
    site = TestSite().start()
    try:
        url = site.url("/aquapure/filters/", host="127.0.0.1")
        site.pages["/aquapure/filters/"] = Page(
            body=html(
                "AquaPure | Help",
                "<h1>Replacing the AquaPure ceramic filter</h1>"
                f"<p>{FILTER}</p><p>The cartridge is sold in packs of two at every Lumen shop,"
                " and each one filters about nine hundred litres of tap water before it clogs.</p>",
            ),
            headers={"ETag": '"f1"'},
        )
        site.pages["/sitemap.xml"] = Page(
            body=(
                '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                f"<url><loc>{url}</loc></url></urlset>"
            ).encode(),
            content_type="application/xml",
        )
        UserFactory(username="source-admin", is_staff=True, is_superuser=True)
        page = browser_context(browser).new_page()
        admin_login(page, base_url=live_api, username="source-admin", password=PASSWORD)

        page.goto(f"{live_api}/admin/sources/source/add/")
        page.select_option("#id_workspace", str(bot.workspace_id))
        page.fill("#id_name", "AquaPure help")
        page.select_option("#id_kind", "website")
        sitemap = site.url("/sitemap.xml", host="127.0.0.1")
        page.fill("#id_config", json.dumps({"sitemap_urls": [sitemap]}))
        page.select_option("#id_bots", [str(bot.pk)])
        page.click("input[name=_continue]")
        expect(page.locator("#sync-now")).to_be_visible()
        source = Source.objects.get(name="AquaPure help")

        page.click("#sync-now")
        box = page.locator("#source-sync")
        expect(box).to_have_attribute("data-status", "done", timeout=120_000)
        bar = page.locator("#sync-progress")
        assert bar.get_attribute("value") == bar.get_attribute("max")  # the bar at its end
        expect(page.locator("#sync-status")).to_have_text(re.compile(r"done: (\d+) of \1 pages"))
        page.screenshot(path=artifact_path("sources-synced.png"), full_page=True)
        wait_for(
            lambda: Document.objects.filter(
                source_page__source=source, status=Document.Status.READY
            ).exists(),
            timeout=120,
            what="the worker to ingest the page",
        )

        visitor = browser_context(browser).new_page()
        widget = widget_open(visitor, live_api)
        widget_ask(widget, "How often should I replace the AquaPure ceramic filter?")
        bubble = widget.locator(".msg.bot").last
        expect(bubble.locator(".tools button.cite")).not_to_have_count(0, timeout=90_000)
        expect(bubble).to_contain_text("180 days")
        bubble.locator(".tools button.cite").first.click()
        link = widget.locator(".preview a.page")
        # The page, opened at the sentence the answer quoted (a URL text fragment).
        expect(link).to_have_attribute(
            "href", re.compile("^" + re.escape(url) + "#:~:text=Replace%20the%20AquaPure")
        )
        expect(link).to_have_text(url)
        visitor.screenshot(path=artifact_path("sources-widget-citation.png"), full_page=True)
    finally:
        site.stop()
