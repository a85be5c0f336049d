"""The widget's own texts follow the host page's language in headless Chromium: each of the six languages
the guards and the injection detector read (English, French, German, Spanish, Italian, Portuguese), and
English for any other; so does the greeting where the appearance gives one for the language.
Screenshot: test-artifacts/widget-locale-de.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from tests.handoff.pages import browser_context, widget_of
from tests.support.browser import artifact_path

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(180)]


def test_the_widget_speaks_the_pages_language(browser: Browser, demo_site: str) -> None:
    page = browser_context(browser).new_page()
    expected = {
        "de": ("Ihre Frage…", "Senden", "Mit einem Menschen sprechen"),
        "es": ("Escriba su pregunta…", "Enviar", "Hablar con una persona"),
        "it": ("Scriva la sua domanda…", "Invia", "Parla con una persona"),
        "pt": ("Escreva a sua pergunta…", "Enviar", "Falar com uma pessoa"),
        # The demo's appearance overrides the French placeholder: a deployment's strings win.
        "fr": ("Votre question sur nos vélos…", "Envoyer", "Parler à un humain"),
        "nl": ("Type your question…", "Send", "Talk to a human"),  # no Dutch texts: English
    }
    for lang, (placeholder, send, human) in expected.items():
        page.goto(f"{demo_site}/demo/?lang={lang}")
        widget = widget_of(page)
        widget.locator("button.launcher").click()
        expect(widget.locator("textarea")).to_have_attribute("placeholder", placeholder)
        expect(widget.locator("button.send")).to_have_accessible_name(send)
        expect(widget.get_by_text(human)).to_be_visible()
        # The demo's appearance greets in German and French, and in its default (English) elsewhere.
        greeting = {"de": "Hallo! Ich bin Lumi.", "fr": "Bonjour ! Je suis Lumi."}.get(
            lang, "Hi! I am Lumi."
        )
        expect(widget.locator(".msg.bot").first).to_contain_text(greeting)
        if lang == "de":
            page.screenshot(path=artifact_path("widget-locale-de.png"))
