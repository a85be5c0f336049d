"""The support check in real headless Chromium (issue 50): the LLM streams an answer whose second
sentence plants a wrong duration. The widget streams only the sentences that pass, so the wrong one is
never on screen, not even for a moment; the final answer holds the supported sentence alone; and the
turn's audit page ("why this answer": its repairs in words) names the removed sentence and why."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.urls import reverse
from playwright.sync_api import Browser, expect

from bots.models import Bot
from conversations.models import Turn
from prompts.services.demo import demo_bot_ensure
from rag.models import Chunk
from tests.handoff.pages import browser_context, widget_ask, widget_open
from tests.support.browser import admin_login
from tests.support.factories import PASSWORD, UserFactory
from tests.support.knowledge import document_ingested
from tests.support.llm_server import Reply, ScriptedLLMServer
from widget.services import demo_widget_ensure

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker, pytest.mark.timeout(240)]

POLICY = (
    "Returns of an unused bike are accepted within 14 days of delivery. The refund reaches your "
    "account within five working days of our receiving the bike."
)
KEPT = "You can return an unused bike within 14 days of delivery."
PLANTED = "After that, you still have 45 days to ask for a refund."
FIRST_ANSWER_TIMEOUT_MS = 90_000
# Every text an answer bubble ever shows, recorded by the page itself as it changes (the widget lives
# in an open shadow root).
RECORDER = """
window.__shown = [];
const attach = () => {
  const host = document.querySelector('[data-parley-widget]');
  if (!host || !host.shadowRoot || window.__observed) return;
  window.__observed = true;
  const root = host.shadowRoot;
  new MutationObserver(() => {
    for (const node of root.querySelectorAll('.msg.bot .md')) window.__shown.push(node.textContent);
  }).observe(root, { subtree: true, childList: true, characterData: true });
};
setInterval(attach, 20);
"""


@pytest.fixture
def shop(live_api: str, celery_worker: str, llm: ScriptedLLMServer) -> Iterator[tuple[str, Bot]]:
    bot = demo_bot_ensure()
    Bot.objects.filter(pk=bot.pk).update(
        llm_provider="openai", llm_model="scripted-model", llm_timeout_seconds=120
    )
    document_ingested(
        workspace=bot.workspace, text=f"# Returns\n\n{POLICY}", bots=[bot], filename="returns.md"
    )
    yield live_api, bot


def _answer(chunk: Chunk) -> dict[str, Any]:
    return {
        "status": "found_in_context",
        "answer": f"{KEPT} {PLANTED}",
        "display_answer": True,
        "confidence_score": 0.9,
        "topic": "unknown",
        "suggested_topics": [],
        "understanding": "Return delay.",
        "redirection_intent": None,
        "context_usage": [
            {
                "chunk": str(chunk.pk),
                "sentences": [POLICY.split(". ")[0] + "."],
                "used_in_response": True,
            }
        ],
    }


def test_a_planted_wrong_duration_never_shows_in_the_stream_and_its_reason_is_on_the_turn(
    browser: Browser, shop: tuple[str, Bot], llm: ScriptedLLMServer
) -> None:
    base, bot = shop
    demo_widget_ensure(bot=bot, origins=(base,))
    chunk = Chunk.objects.get(text__contains="14 days")
    llm.enqueue(Reply(content=json.dumps(_answer(chunk), ensure_ascii=False), token_delay=0.02))
    page = browser_context(browser).new_page()
    page.add_init_script(RECORDER)
    widget = widget_open(page, base)

    answer = widget_ask(widget, "How long do I have to return my bike?")

    expect(answer).to_have_text(KEPT, timeout=FIRST_ANSWER_TIMEOUT_MS)
    expect(widget.locator(".status")).to_have_text("")
    shown = page.evaluate("window.__shown")
    assert any(KEPT in text for text in shown)
    assert not any("45" in text for text in shown), shown

    turn = Turn.objects.get(conversation__bot=bot, answer=KEPT)
    assert "45" in json.dumps(turn.repairs)
    admin = UserFactory(is_superuser=True)
    audit = browser_context(browser).new_page()
    admin_login(audit, base_url=base, username=admin.username, password=PASSWORD)
    audit.goto(base + reverse("admin:conversations_turn_change", args=[turn.pk]))
    repairs = audit.locator("ul.turn-repairs")
    expect(repairs).to_contain_text("unsupported_quantity_removed")
    expect(repairs).to_contain_text(PLANTED)
    expect(repairs).to_contain_text("found in no passage")
