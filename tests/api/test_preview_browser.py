"""The demo in real Chromium: a question in the widget cites the scanned notice (read by OCR), and its source
preview shows the page region with the passage highlighted beside the text. Screenshot: test-artifacts/."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from rag.models import Chunk, Document
from tests.handoff.pages import browser_context, widget_ask, widget_open
from tests.support.browser import artifact_path
from tests.support.demo import demo_bot_ingested

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(240)]

QUESTION = "Which Lumen City 3 bikes get a free battery connector repair under warranty?"


def test_a_widget_answer_cites_the_scanned_page_and_shows_it_highlighted(
    browser: Browser, live_api: str, celery_worker: str
) -> None:
    bot = demo_bot_ingested(origin=live_api)
    scan = Document.objects.get(workspace=bot.workspace, filename="battery-connector-notice.pdf")
    assert scan.status == "ready", scan.error
    cited = Chunk.objects.get(document=scan, text__contains="LC3-24")

    page = browser_context(browser).new_page()
    widget = widget_open(page, live_api)
    answer = widget_ask(widget, QUESTION)
    expect(answer).to_contain_text("LC3-24")
    citation = widget.locator(".msg.bot").last.locator(".tools button.cite").first
    with page.expect_response(re.compile(rf"/api/v1/chunks/{cited.pk}/preview$")) as preview_call:
        citation.click()
    assert preview_call.value.status == 200
    assert preview_call.value.header_value("content-type") == "image/png"
    preview = widget.locator(".preview")
    expect(preview).to_contain_text("Battery connector service notice")
    expect(preview).to_contain_text("page 1")
    expect(preview.locator(".src p")).to_contain_text("LC3-24")
    picture = preview.locator(".src img")
    expect(picture).to_be_visible()
    size = picture.evaluate("img => [img.naturalWidth, img.naturalHeight, img.complete]")
    assert size[0] > 200 and size[1] > 50 and size[2]
    box = picture.bounding_box()
    text_box = preview.locator(".src p").bounding_box()
    assert box is not None and text_box is not None and box["x"] + box["width"] <= text_box["x"] + 1
    page.screenshot(path=str(artifact_path("widget-scanned-source-preview.png")))
