"""A visitor asks the demo bot (offline provider, English documents) in French, German and Chinese, in real
headless Chromium: the multilingual vector side finds the English passage, and the answer quotes it in
English, framed in the question's language. Screenshot: test-artifacts/across-languages.png."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from bots.models import Bot
from prompts.services.demo import FRENCH_TEXTS
from tests.handoff.pages import browser_context, widget_ask, widget_open
from tests.support.browser import artifact_path
from tests.support.demo import demo_bot_ingested

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker, pytest.mark.timeout(300)]

# The first answer of a session waits for the worker to load the embedding models.
FIRST_ANSWER_TIMEOUT_MS = 90_000


@pytest.fixture
def demo(live_api: str, celery_worker: str) -> Iterator[Bot]:
    yield demo_bot_ingested(origin=live_api)


@pytest.mark.parametrize(
    ("question", "frame", "english"),
    [
        (
            "Combien de temps prend la livraison d'un vélo ?",
            "La documentation (en anglais) indique",
            "deliver",
        ),
        ("Wie lange dauert die Lieferung?", "Die Dokumentation (auf Englisch) sagt", "deliver"),
        # Nine characters: detected as Chinese from its bytes, framed by CLDR's name for English.
        ("送货需要多长时间？", "文档（英语）指出", "deliver"),
    ],
)
def test_french_german_and_chinese_questions_get_the_english_passage_framed_in_their_language(
    browser: Browser, live_api: str, demo: Bot, question: str, frame: str, english: str
) -> None:
    page = browser_context(browser).new_page()
    widget = widget_open(page, live_api)
    answer = widget_ask(widget, question)
    bubble = widget.locator(".msg.bot").last
    expect(bubble.locator(".tools")).to_be_visible(timeout=FIRST_ANSWER_TIMEOUT_MS)
    expect(answer).to_contain_text(frame)
    text = answer.inner_text()
    assert english in text.lower(), text  # the passage itself, quoted in English
    # cited: the quoted passage is a source the visitor can open
    expect(bubble.locator(".tools button.cite")).not_to_have_count(0)
    page.screenshot(path=str(artifact_path("across-languages.png")))


def test_the_french_battery_warranty_question_gets_the_warranty_row_and_an_unanswerable_one_not_found(
    browser: Browser, live_api: str, demo: Bot
) -> None:
    page = browser_context(browser).new_page()
    widget = widget_open(page, live_api)

    warranty = widget_ask(widget, "Quelle est la garantie de la batterie ?")
    bubble = widget.locator(".msg.bot").last
    expect(bubble.locator(".tools")).to_be_visible(timeout=FIRST_ANSWER_TIMEOUT_MS)
    expect(warranty).to_contain_text("La documentation (en anglais) indique")
    expect(warranty).to_contain_text("800")  # "Battery: 2 years or 800 full charge cycles"
    page.screenshot(path=str(artifact_path("across-languages-warranty.png")))

    # Another visitor asks what the documents cannot answer: the French "not found".
    other = widget_open(browser_context(browser).new_page(), live_api)
    missing = widget_ask(other, "Quel fleuve traverse la capitale de la Mongolie ?")
    expect(missing).to_have_text(FRENCH_TEXTS["no_answer_text"], timeout=FIRST_ANSWER_TIMEOUT_MS)
