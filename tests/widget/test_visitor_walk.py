"""A visitor's walk through the demo in real headless Chromium, against uvicorn, the Celery worker and
the offline provider on the demo documents: whole-sentence answers streamed in several renders, inline
[n] markers and a source preview that Escape closes, "Why this answer" in words, sources and feedback
surviving a reload, a French answer in French; then the handoff's waiting banner, its no-agent timeout
and the confirmation of a message left. Screenshots: test-artifacts/visitor-walk-*.png.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from bots.models import Bot
from conversations.models import Conversation
from handoff.models import Handoff, HandoffPolicy
from prompts.services.demo import demo_bot_ensure
from tests.handoff.pages import browser_context, widget_ask, widget_of, widget_open
from tests.insights.helpers import curated_answer_make
from tests.support.browser import artifact_path
from tests.support.demo import demo_bot_ingested
from widget.services import demo_widget_ensure

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker, pytest.mark.timeout(300)]

# The first answer of a session waits for the worker to load the embedding model.
FIRST_ANSWER_TIMEOUT_MS = 90_000
UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)
EMOJI_RE = re.compile("[\u2600-\u27bf\U0001f000-\U0001faff\ufe0f]")
SENTENCE_END = re.compile(r"[.!?…:)\"»]$")
# Records each render of a streaming answer: the widget replaces the body of the answer bubble with
# the text so far (a partial render); the finished answer replaces the body itself.
STREAM_RECORDER = """() => {
  window.__renders = [];
  const log = document.querySelector("[data-parley-widget]").shadowRoot.querySelector(".log");
  new MutationObserver((records) => {
    for (const r of records) {
      if (!(r.target instanceof Element) || !r.target.matches(".msg.bot > .md")) continue;
      for (const node of r.addedNodes) window.__renders.push(node.textContent.length);
    }
  }).observe(log, { childList: true, subtree: true });
}"""
# The answer's paragraphs and list items as a reader sees them, without the [n] marker buttons.
ANSWER_BLOCKS = """(md) => {
  const copy = md.cloneNode(true);
  copy.querySelectorAll(".mark").forEach((b) => b.remove());
  return [...copy.querySelectorAll("p, li")].map((b) => b.textContent.trim()).filter(Boolean);
}"""


@pytest.fixture
def demo(live_api: str, celery_worker: str) -> Iterator[Bot]:
    """The demo bot (offline provider) with its seven documents ingested, and its widget key."""
    bot = demo_bot_ingested(origin=live_api)
    yield bot


def _whole_sentences(answer: Locator) -> list[str]:
    blocks: list[str] = answer.evaluate(ANSWER_BLOCKS)
    assert blocks and "|" not in answer.inner_text()
    for block in blocks:
        assert "|" not in block, block  # no raw table row: tables are rendered as tables
        assert block[0].isupper() or block[0].isdigit(), block  # does not start inside a sentence
        assert SENTENCE_END.search(block), block  # does not end inside one
    return blocks


def _ask_streamed(page: Page, widget: Locator, question: str) -> Locator:
    page.evaluate(STREAM_RECORDER)
    widget_ask(widget, question)
    expect(widget.locator(".msg.bot").last.locator(".tools")).to_be_visible(
        timeout=FIRST_ANSWER_TIMEOUT_MS
    )
    return widget.locator(".msg.bot").last.locator(".md").first


def test_a_visitor_walks_the_demo_streamed_cited_explained_and_kept_across_a_reload(
    browser: Browser, live_api: str, demo: Bot
) -> None:
    page = browser_context(browser).new_page()
    widget = widget_open(page, live_api)
    launcher, close = widget.locator("button.launcher"), widget.locator("button.close")
    expect(launcher).to_have_attribute("aria-label", "Hide chat")
    expect(close).to_have_attribute("aria-label", "Close chat")

    # 1. Streamed: at least two partial renders, growing, before the finished answer.
    answer = _ask_streamed(page, widget, "How long does the battery take to charge?")
    renders: list[int] = page.evaluate("window.__renders")
    partial = [n for n in renders if n > 0]
    assert len(set(partial)) >= 2, renders
    assert partial == sorted(partial), renders
    blocks = _whole_sentences(answer)
    assert "hours" in " ".join(blocks)

    # 2. Inline [n] markers, linked to the chips: a marker opens its source's preview, a drawer over
    # the conversation (the log keeps its size) with a close button; Escape closes it, not the panel.
    bot = widget.locator(".msg.bot").last
    marker = answer.locator("button.mark").first
    expect(marker).to_be_visible()
    number = marker.get_attribute("data-n")
    chip = bot.locator(f'.tools button.cite[data-n="{number}"]')
    expect(chip).to_have_count(1)
    marker.focus()  # focus points at its chip
    expect(chip).to_have_class(re.compile(r"\bhint\b"))
    log_height = widget.locator(".log").bounding_box()["height"]  # type: ignore[index]
    marker.click()
    preview = widget.locator(".preview")
    expect(preview).to_be_visible()
    expect(preview.locator(".phead strong")).to_contain_text(f"[{number}]")
    expect(chip).to_have_class(re.compile(r"\bon\b"))
    expect(preview.get_by_role("button", name="Close the source")).to_be_visible()
    assert widget.locator(".log").bounding_box()["height"] == log_height  # type: ignore[index]
    panel_box, preview_box = widget.locator("#parley-panel").bounding_box(), preview.bounding_box()
    assert panel_box and preview_box and preview_box["height"] <= 0.5 * panel_box["height"]
    composer_free = widget.locator("textarea").evaluate(
        "t => { const r = t.getBoundingClientRect();"
        " return t.getRootNode().elementFromPoint(r.x + r.width / 2, r.y + r.height / 2) === t; }"
    )
    assert composer_free  # the drawer leaves the composer usable
    page.screenshot(path=str(artifact_path("visitor-walk-preview.png")))
    page.keyboard.press("Escape")
    expect(preview).to_be_hidden()
    expect(widget.locator("#parley-panel")).to_be_visible()
    expect(marker).to_be_focused()
    chip.click()
    expect(preview).to_be_visible()
    preview.get_by_role("button", name="Close the source").click()
    expect(preview).to_be_hidden()

    # 3. "Why this answer": the documents used and the quoted sentences, in words; no ids, no JSON.
    why = bot.locator("details")
    why.locator("summary").click()
    expect(why).to_contain_text("Documents used")
    bot.screenshot(path=str(artifact_path("visitor-walk-why.png")))
    why_text = why.inner_text()
    title = chip.inner_text().split(" ", 1)[1]
    assert title in why_text
    assert why.locator("blockquote").count() >= 1
    quoted = why.locator("blockquote").first.inner_text()
    assert quoted in " ".join(blocks) or quoted.split(". ")[0] in answer.inner_text()
    assert not UUID_RE.search(why_text) and "{" not in why_text and '"chunk"' not in why_text

    # 4. Feedback; icons are inline SVG and there is no emoji character anywhere in the widget.
    helpful = bot.get_by_role("button", name="Helpful", exact=True)
    helpful.click()
    expect(helpful).to_have_attribute("aria-pressed", "true")
    for button in (launcher, close, helpful, widget.locator("button.send")):
        expect(button.locator("svg")).to_have_count(1)
    shadow_text = page.evaluate(
        "document.querySelector('[data-parley-widget]').shadowRoot.textContent"
    )
    assert not EMOJI_RE.search(shadow_text)
    page.screenshot(path=str(artifact_path("visitor-walk-answer.png")))

    # 5. A table: quoted in whole phrases or as a rendered table, never as raw pipes; its source's
    # preview renders the document's Markdown table as an HTML table.
    warranty = _ask_streamed(page, widget, "What does the warranty cover?")
    _whole_sentences(warranty)
    chip = widget.locator(".msg.bot").last.locator(".tools button.cite", has_text="Warranty")
    chip.first.click()
    expect(preview.locator("table th").first).to_be_visible()
    assert "|" not in preview.locator(".src").inner_text()
    page.screenshot(path=str(artifact_path("visitor-walk-table-preview.png")))
    page.keyboard.press("Escape")
    expect(preview).to_be_hidden()

    # 6. A French question over the English documents: the English passage, framed in French (issue 24).
    french = _ask_streamed(page, widget, "Combien de temps faut-il pour charger la batterie ?")
    french_text = " ".join(_whole_sentences(french))
    assert french_text.startswith("La documentation (en anglais) indique"), french_text
    assert "four and a half hours" in french_text, french_text

    # 7. A reload: the panel opens on the last message, the sources, explanation and feedback are back.
    page.reload()
    widget = widget_of(page)
    widget.locator("button.launcher").click()
    first = widget.locator(".msg.bot").nth(1)  # after the greeting
    expect(first).to_contain_text(blocks[0][:40])
    expect(first.locator(".tools button.cite")).not_to_have_count(0)
    expect(first.locator("button.mark")).not_to_have_count(0)
    expect(first.get_by_role("button", name="Helpful", exact=True)).to_have_attribute(
        "aria-pressed", "true"
    )
    expect(first.locator("details blockquote")).not_to_have_count(0)
    log = widget.locator(".log")
    expect(log).to_contain_text(french_text[:40])
    at_bottom = log.evaluate("l => l.scrollHeight - l.scrollTop - l.clientHeight <= 2")
    assert at_bottom
    page.screenshot(path=str(artifact_path("visitor-walk-reloaded.png")))


def test_a_curated_answers_source_opens_from_its_citation_without_asking_for_a_chunk(
    browser: Browser, live_api: str, demo: Bot
) -> None:
    answer = "Yes: tandems are rented at the Lyon shop only, for 40 euros a day."
    curated_answer_make(
        bot=demo, question="Can I rent a tandem bike for two people?", answer=answer
    )
    page = browser_context(browser).new_page()
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    widget = widget_open(page, live_api)

    reply = _ask_streamed(page, widget, "Can I rent a tandem for two?")
    expect(reply).to_contain_text("Lyon shop")
    widget.locator(".msg.bot").last.locator(".tools button.cite").first.click()

    preview = widget.locator(".preview")
    expect(preview.locator(".src")).to_contain_text("40 euros a day")
    # The citation carries the curated text; "curated:<id>" is no chunk the API could return.
    assert not [url for url in asked if "/chunks/curated" in url], asked


def test_the_visitor_waits_sees_the_timeout_and_leaves_a_message_kept_across_a_reload(
    browser: Browser, live_api: str, celery_worker: str
) -> None:
    bot = demo_bot_ensure()
    demo_widget_ensure(bot=bot, origins=(live_api,))
    timeout_text = "Nobody can answer now: leave us a message and we reply within a day."
    HandoffPolicy.objects.filter(bot=bot).update(timeout_seconds=3, timeout_text=timeout_text)
    page = browser_context(browser).new_page()
    widget = widget_open(page, live_api)
    widget.get_by_role("button", name="Talk to a human").click()

    # Waiting: a banner with the elapsed time, ticking.
    banner = widget.locator(".banner")
    expect(banner).to_contain_text(re.compile(r"Waiting for an agent…\s*0:0[0-2]"))
    expect(banner).to_contain_text(re.compile(r"Waiting for an agent…\s*0:0[1-9]"))
    expect(widget.get_by_role("button", name="Talk to a human")).to_be_hidden()
    page.screenshot(path=str(artifact_path("visitor-walk-waiting.png")))

    # Nobody claimed it: the policy's message, and the state is no longer "waiting".
    expect(widget.locator(".msg.system")).to_contain_text(timeout_text, timeout=30_000)
    expect(banner).to_have_text("No agent is available – leave a message")
    handoff = Handoff.objects.get(conversation__bot=bot)
    assert handoff.timed_out_at is not None and handoff.closed_at is None
    page.reload()
    widget = widget_of(page)
    widget.locator("button.launcher").click()
    expect(widget.locator(".banner")).to_have_text("No agent is available – leave a message")
    expect(widget.locator(".msg.system")).to_contain_text(timeout_text)
    assert "Waiting" not in widget.locator(".status").inner_text()

    # The visitor leaves a message: a confirmation, still there after a reload.
    widget.locator("textarea").fill("Please call me back about my battery, order LB-123456.")
    widget.locator("textarea").press("Enter")
    confirmation = "Thank you, your message was sent. We will answer you here."
    expect(widget.locator(".banner")).to_have_text(confirmation)
    assert Conversation.objects.get(bot=bot).messages.filter(role="visitor").count() == 1
    page.screenshot(path=str(artifact_path("visitor-walk-message-left.png")))
    page.reload()
    widget = widget_of(page)
    widget.locator("button.launcher").click()
    expect(widget.locator(".banner")).to_have_text(confirmation)
    expect(widget.locator(".msg.visitor").last).to_contain_text("Please call me back")
