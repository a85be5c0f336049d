"""The agent's side of the demo, in real headless Chromium against uvicorn, the Celery worker and Redis,
with the default offline provider.

A visitor asks the demo bot a question from its delivery page, then asks for a human. The agent's queue
row previews that question and why it escalated; the context pack shows it (not the request for a
human), the bot's understanding of it and the sources of its answer with their quoted sentences. The
agent sets the name visitors see, claims and replies, and the visitor's widget shows that name, never
the login. The visitor writes again; the agent returns the conversation to the bot without answering,
and the bot answers that message (once). The conversation stays in the console, with its later turns
arriving live, until the agent closes it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from bots.models import Bot
from conversations.models import Conversation, Turn
from conversations.pipeline.results import turn_citations
from handoff.models import Handoff, HandoffReason, Message
from handoff.services import handoff_open
from prompts.services.demo import demo_bot_ensure
from tests.handoff.pages import (
    agent_make,
    agent_page,
    browser_context,
    widget_ask,
    widget_of,
    widget_open,
)
from tests.support.browser import admin_login, artifact_path
from tests.support.demo import demo_page_ingested
from tests.support.factories import PASSWORD
from tests.support.processes import wait_for
from widget.services import demo_widget_ensure

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker, pytest.mark.timeout(300)]

DELIVERY_FILE = "orders-and-delivery.md"
QUESTION = "Does the courier call me before the delivery?"
ASK_HUMAN = "I want to talk to a human"
LEFT_FOR_THE_AGENT = "Can I still change the frame size of my order?"
LATER_QUESTION = "How long is a bike kept at the depot if nobody is home?"
AGENT_LOGIN = "alice-walk"
DISPLAY_NAME = "Camille from Lumen"
# The first answer of a session waits for the worker to load the embedding model.
FIRST_ANSWER_TIMEOUT_MS = 90_000


@dataclass
class Demo:
    base: str
    bot: Bot


@pytest.fixture
def demo(live_api: str, celery_worker: str) -> Iterator[Demo]:
    """The demo bot (offline provider) with the demo's delivery page, and its widget on the demo page."""
    bot = demo_bot_ensure()
    demo_page_ingested(bot=bot, filename=DELIVERY_FILE)
    demo_widget_ensure(bot=bot, origins=(live_api,))
    yield Demo(base=live_api, bot=bot)


def _answered(widget: Locator, question: str, *, timeout: float = 30_000) -> Locator:
    """Asks and waits for the whole answer (its tools row comes with the end of the stream)."""
    answer = widget_ask(widget, question)
    expect(widget.locator(".msg.bot").last.locator(".tools")).to_be_visible(timeout=timeout)
    return answer


def _console_message(agent: Page, role: str, text: str) -> Locator:
    return agent.locator(f"#log .msg.{role}", has_text=text)


def test_agent_walk_preview_reason_sources_display_name_return_to_bot_and_close(
    browser: Browser, demo: Demo
) -> None:
    agent = agent_page(browser, demo.base, username=AGENT_LOGIN, workspaces=[demo.bot.workspace])
    expect(agent.locator("#queue")).to_contain_text("Nobody is waiting")
    visitor = browser_context(browser).new_page()
    widget = widget_open(visitor, demo.base)

    # 1. A question the demo bot answers from its delivery page, then a request for a human.
    _answered(widget, QUESTION, timeout=FIRST_ANSWER_TIMEOUT_MS)
    conversation = Conversation.objects.get(bot=demo.bot)
    asked = Turn.objects.get(conversation=conversation, user_text=QUESTION)
    assert asked.status == Turn.Status.FOUND_IN_CONTEXT, asked.status
    quoted = [
        sentence
        for usage in asked.context_usage
        if usage["used_in_response"]
        for sentence in usage["sentences"]
    ]
    used = {usage["chunk"] for usage in asked.context_usage if usage["used_in_response"]}
    titles = {chunk["title"] for chunk in asked.retrieved_chunks if chunk["chunk_id"] in used}
    assert quoted and titles
    widget_ask(widget, ASK_HUMAN)
    expect(widget.locator(".status")).to_contain_text("Waiting for an agent")
    handoff = Handoff.objects.get(conversation=conversation)

    # 2. The queue row previews the question (not the request for a human) and the reason.
    entry = agent.locator("#queue button").first
    expect(entry.locator(".question")).to_have_text(QUESTION)
    expect(entry.locator(".reason")).to_have_text("Asked for a human")
    expect(entry.locator(".wait")).to_have_text(re.compile(r"\d+:\d\d"))
    entry.click()

    # 3. The context pack: the question that led to the escalation, the bot's understanding of it,
    # and the sources of its answer: the document's title and the sentences it quoted.
    expect(agent.locator("#context dd.question")).to_have_text(QUESTION)
    expect(agent.locator("#context dd.reason")).to_have_text("Asked for a human")
    expect(agent.locator("#context dd.understanding")).to_have_text(asked.understanding or "—")
    source = agent.locator("#sources .source").first
    expect(source.locator("strong")).to_contain_text(sorted(titles)[0])
    for sentence in quoted:
        expect(agent.locator("#sources q", has_text=sentence).first).to_be_visible()
    agent.screenshot(path=str(artifact_path("agent-walk-context.png")))

    # 4. The agent chooses the name visitors see, claims and replies.
    agent.get_by_label("Your name shown to visitors").fill(DISPLAY_NAME)
    agent.get_by_role("button", name="Save").click()
    expect(agent.locator("#notice")).to_contain_text(DISPLAY_NAME)
    agent.get_by_role("button", name="Claim").click()
    expect(agent.locator("#owner")).to_contain_text(DISPLAY_NAME)
    # The visitor is told who joined, by the name the agent chose.
    expect(
        widget.locator(".msg.system", has_text=f"{DISPLAY_NAME} joined the chat.")
    ).to_be_visible()
    agent.fill("#reply-text", "Hello, I can help with your delivery.")
    agent.press("#reply-text", "Enter")

    # The visitor reads the display name on the agent's message, live and after a reload; never the login.
    reply = widget.locator(".msg.agent").last
    expect(reply).to_contain_text("Hello, I can help with your delivery.")
    expect(reply.locator(".who")).to_have_text(DISPLAY_NAME)
    visitor.reload()
    widget = widget_of(visitor)
    widget.locator("button.launcher").click()
    expect(widget.locator(".msg.agent .who").last).to_have_text(DISPLAY_NAME)
    # The reload says who joined where the live event said it: just before the agent's first reply.
    lines = widget.locator(".log .msg").all_inner_texts()
    joined = [n for n, line in enumerate(lines) if line == f"{DISPLAY_NAME} joined the chat."]
    replied = [n for n, line in enumerate(lines) if "Hello, I can help" in line]
    assert len(joined) == 1 and replied == [joined[0] + 1], lines
    assert AGENT_LOGIN not in widget.locator(".log").inner_text()
    widget.locator("#parley-panel").screenshot(
        path=str(artifact_path("agent-walk-widget-name.png"))
    )

    # 5. The visitor writes again; the agent hands back to the bot without answering: the bot answers it.
    widget.locator("textarea").fill(LEFT_FOR_THE_AGENT)
    widget.locator("textarea").press("Enter")
    expect(_console_message(agent, "visitor", LEFT_FOR_THE_AGENT)).to_be_visible()
    agent.get_by_role("button", name="Return to bot").click()
    expect(widget.locator(".log")).to_contain_text("chatting with the assistant again")

    def pending_answered() -> bool:
        # The task completes the turn, then points the messages at it: wait for both, not the first alone
        # (on a loaded machine the check fell between them).
        return Message.objects.filter(
            answered_by__client_message_id=f"handoff/{handoff.pk}",
            answered_by__completed_at__isnull=False,
        ).exists()

    wait_for(pending_answered, timeout=60, what="the bot's answer to the message left unanswered")
    pending = Turn.objects.get(client_message_id=f"handoff/{handoff.pk}")
    assert pending.user_text == LEFT_FOR_THE_AGENT and pending.reply_text
    assert list(Message.objects.filter(answered_by=pending).values_list("text", flat=True)) == [
        LEFT_FOR_THE_AGENT
    ]
    first_line = pending.reply_text.splitlines()[0]
    expect(_console_message(agent, "bot", first_line)).to_be_visible()  # live, in the console
    # Live in the widget too, without a reload: the bot's answer with its source chips, drawn once. The
    # widget puts a source's marker after the first sentence it quotes, so its first sentence is matched.
    first_sentence = re.split(r"(?<=[.!?])\s", first_line)[0]
    answered = widget.locator(".msg.bot", has_text=first_sentence)
    expect(answered).to_have_count(1)
    chips = [f"{c['n']} {c['title']}" for c in turn_citations(turn=pending)]
    assert chips, "the pending answer quotes the delivery page"
    expect(answered.locator(".tools .cite")).to_have_text(chips)
    widget.locator("#parley-panel").screenshot(
        path=str(artifact_path("agent-walk-widget-pending-answer.png"))
    )
    visitor.reload()
    widget = widget_of(visitor)
    widget.locator("button.launcher").click()
    expect(widget.locator(".msg.bot", has_text=first_sentence)).to_have_count(1)

    # 6. It stays in the agent's list, with the bot's later turns arriving live, until closed.
    row = agent.locator(f'#queue button[data-id="{conversation.pk}"]')
    expect(row.locator(".wait")).to_have_text("with the bot")
    _answered(widget, LATER_QUESTION)
    later = Turn.objects.get(conversation=conversation, user_text=LATER_QUESTION)
    expect(_console_message(agent, "visitor", LATER_QUESTION)).to_be_visible()
    expect(_console_message(agent, "bot", later.reply_text.splitlines()[0])).to_be_visible()
    assert Turn.objects.filter(client_message_id=f"handoff/{handoff.pk}").count() == 1
    agent.screenshot(path=str(artifact_path("agent-walk-after-return.png")))
    agent.get_by_role("button", name="Close").click()
    expect(agent.locator("#detail")).to_be_hidden()
    expect(agent.locator("#queue")).to_contain_text("Nobody is waiting")
    agent.reload()
    expect(agent.locator("#queue")).to_contain_text("Nobody is waiting")
    assert Handoff.objects.get(pk=handoff.pk).agent_closed_at is not None


def test_the_console_names_escalations_in_the_agents_language(
    browser: Browser, live_api: str
) -> None:
    """A French browser reads the console's labels and the escalation kinds in French."""
    bot = demo_bot_ensure()
    for visitor, reason in (("v-low", HandoffReason.LOW_CONFIDENCE), ("v-ask", "visitor_request")):
        conversation = Conversation.objects.create(bot=bot, channel="widget", visitor_id=visitor)
        handoff_open(conversation_id=conversation.pk, reason=reason)
    agent_make(username="agent-fr", workspaces=[bot.workspace])
    context = browser.new_context(locale="fr-FR", viewport={"width": 1280, "height": 860})
    page = context.new_page()
    admin_login(page, base_url=live_api, username="agent-fr", password=PASSWORD)
    page.goto(f"{live_api}/agent/")
    expect(page.get_by_label("Votre nom affiché aux visiteurs")).to_be_visible()
    reasons = page.locator("#queue .reason")
    expect(reasons).to_have_count(2)
    expect(reasons).to_have_text(["Confiance faible", "A demandé un humain"])
    page.screenshot(path=str(artifact_path("agent-console-fr.png")))
    context.close()
