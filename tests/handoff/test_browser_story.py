"""The whole story in real headless Chromium, against uvicorn, the Celery worker, Redis and the scripted LLM server.

A visitor on the demo page gets a streamed answer with a working citation, asks for a human; an agent
in the console (another browser context) sees the conversation arrive live, claims it and replies; the
agent hands it back and the bot answers again, streamed. Then the widget alone: an answer stream killed
mid-way by a TCP proxy resumes with Last-Event-ID and shows the whole answer exactly once.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Request, expect

from bots.models import Bot
from conversations.contract.parsing import answer_preview
from conversations.models import Conversation
from prompts.services.demo import demo_bot_ensure
from rag.models import Chunk
from tests.handoff.pages import agent_page, browser_context, widget_ask, widget_of, widget_open
from tests.support.answers import found_answer
from tests.support.browser import artifact_path
from tests.support.knowledge import document_ingested
from tests.support.llm_server import Reply, ScriptedLLMServer
from tests.support.tcp_proxy import CuttingProxy
from widget.services import demo_widget_ensure

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker, pytest.mark.timeout(240)]

# Written for these tests. Each chunk is longer than a citation's 200-character preview, so the end of
# its text can only come from GET /chunks/{id}.
CHARGING = (
    "A Lumen battery charges from empty to full in about four hours with the supplied charger. "
    "Charge it indoors, at a temperature between 10 and 25 degrees, on a hard surface away from curtains. "
    "The charger light turns green once the battery is full; you can leave it plugged in overnight."
)
WINTER = (
    "Store the battery at room temperature with a charge between 30 and 60 percent when you do not ride in winter. "
    "Never leave it in a cold garage or shed below freezing. "
    "Top it up to about half every two months, and charge it fully before the first spring ride."
)
FIRST_ANSWER = (
    "A full charge takes about four hours with the supplied charger. Charge the battery indoors, "
    "between 10 and 25 degrees, and unplug it whenever you like once the light turns green."
)
# Streamed sentence by sentence, an answer the proxy cuts after its second fragment needs three.
THREE_SENTENCES = (
    "A full charge takes about four hours with the supplied charger. Charge the battery indoors, "
    "between 10 and 25 degrees. Unplug it whenever you like once the light turns green."
)
SECOND_ANSWER = (
    "Keep the battery indoors at room temperature, charged between 30 and 60 percent. Top it up "
    "to about half every two months until spring."
)
_TOKENS = re.compile(r"\S+\s*|\s+")  # how the scripted server splits what it streams
# The first answer of a session waits for the worker to load the embedding model: seconds on a quiet
# machine, much longer on a loaded one.
FIRST_ANSWER_TIMEOUT_MS = 90_000


@dataclass
class Shop:
    base: str
    bot: Bot
    charging: Chunk
    winter: Chunk


@dataclass
class Scripted:
    """One streamed answer held mid-way: `shown` is the text the widget must show while it is held."""

    reply: Reply
    shown: str


def scripted_answer(
    body: dict[str, Any], *, words_before_pause: int, token_delay: float = 0.02
) -> Scripted:
    """The answer streamed token by token, held after `words_before_pause` words of its answer field."""
    content = json.dumps(body, ensure_ascii=False)
    tokens = _TOKENS.findall(content)
    first_word = next(i for i, token in enumerate(tokens) if token.startswith('"answer"')) + 1
    pause = first_word + words_before_pause
    preview = answer_preview(partial_output="".join(tokens[:pause])) or ""
    # An LLM answer streams sentence by sentence, each once the support check passed it
    # (docs/decisions/support-check-streaming.md): the widget shows the complete sentences so far.
    ends = [m.end() for m in re.finditer(r"[.!?](?=\s+\S)", preview)]
    shown = preview[: ends[-1]] if ends else ""
    assert shown and body["answer"].startswith(shown) and shown != body["answer"]
    reply = Reply(
        content=content, token_delay=token_delay, pause_after=pause, resume=threading.Event()
    )
    return Scripted(reply=reply, shown=shown.strip())


@pytest.fixture
def shop(live_api: str, celery_worker: str, llm: ScriptedLLMServer) -> Iterator[Shop]:
    """The demo bot on the scripted LLM server, with two documents of its own."""
    bot = demo_bot_ensure()
    # A long LLM timeout: a test holds a stream mid-answer while it looks at the page.
    Bot.objects.filter(pk=bot.pk).update(
        llm_provider="openai", llm_model="scripted-model", llm_timeout_seconds=120
    )
    document_ingested(
        workspace=bot.workspace,
        text=f"# Charging\n\n{CHARGING}",
        bots=[bot],
        filename="charging.md",
    )
    document_ingested(
        workspace=bot.workspace,
        text=f"# Winter storage\n\n{WINTER}",
        bots=[bot],
        filename="winter.md",
    )
    yield Shop(
        base=live_api,
        bot=bot,
        charging=Chunk.objects.get(text__contains="four hours"),
        winter=Chunk.objects.get(text__contains="freezing"),
    )


def test_whole_story_streamed_answer_citation_handoff_agent_reply_and_back_to_the_bot(
    browser: Browser, shop: Shop, llm: ScriptedLLMServer
) -> None:
    demo_widget_ensure(bot=shop.bot, origins=(shop.base,))
    agent = agent_page(browser, shop.base, username="alice", workspaces=[shop.bot.workspace])
    expect(agent.locator("#queue")).to_contain_text("Nobody is waiting")
    visitor = browser_context(browser).new_page()
    widget = widget_open(visitor, shop.base)
    expect(widget.locator(".msg.bot").first).to_contain_text("I am Lumi")

    # 1. A streamed answer: part of it is on screen while the model is still writing the rest.
    first = scripted_answer(
        found_answer(
            str(shop.charging.pk), answer=FIRST_ANSWER, sentence=CHARGING.split(". ")[0] + "."
        ),
        words_before_pause=12,
    )
    llm.enqueue(first.reply)
    answer = widget_ask(widget, "How long does it take to charge the battery?")
    expect(answer).to_have_text(first.shown, timeout=FIRST_ANSWER_TIMEOUT_MS)
    expect(widget.locator(".status")).to_contain_text("Writing")
    assert widget.locator(".msg.bot").last.locator(".tools").count() == 0  # the end has not arrived
    first.reply.resume.set()
    expect(answer).to_have_text(FIRST_ANSWER)
    expect(widget.locator(".status")).to_have_text("")

    # ... with a working citation: its title, and the chunk's text read from GET /chunks/{id}.
    citation = widget.locator(".msg.bot").last.locator(".tools button.cite").first
    expect(citation).to_contain_text("1")
    with visitor.expect_response(
        re.compile(rf"/api/v1/chunks/{shop.charging.pk}$")
    ) as chunk_response:
        citation.click()
    assert chunk_response.value.status == 200
    preview = widget.locator(".preview")
    expect(preview).to_contain_text(f"[1] {shop.charging.document.title}")
    expect(preview).to_contain_text(
        "you can leave it plugged in overnight"
    )  # past the 200-character preview

    # 2. The visitor asks for a human; the agent's queue shows it live, without a reload.
    widget.get_by_role("button", name="Talk to a human").click()
    expect(widget.locator(".status")).to_contain_text("Waiting for an agent")
    entry = agent.locator("#queue button").first
    expect(entry).to_contain_text("Lumi")
    expect(entry.locator(".wait")).to_have_text(re.compile(r"\d+:\d\d"))
    entry.click()
    expect(agent.locator("#log")).to_contain_text(FIRST_ANSWER)  # the context pack has the history
    expect(agent.locator("#sources")).to_contain_text(shop.charging.document.title)
    agent.get_by_role("button", name="Claim").click()
    expect(agent.locator("#owner")).to_contain_text("agent: alice")
    expect(widget.locator(".log")).to_contain_text("An agent joined the chat")
    expect(agent.locator("#events")).to_contain_text("waiting_agent → agent by alice")

    # While the agent owns the conversation the bot is muted: the visitor's message reaches the agent only.
    calls = len(llm.chat_requests())
    widget.locator("textarea").fill("My charger light stays orange.")
    widget.locator("textarea").press("Enter")
    expect(agent.locator("#log")).to_contain_text("My charger light stays orange.")
    expect(widget.locator(".msg.visitor").last).to_contain_text("My charger light stays orange.")
    expect(widget.locator(".msg.bot")).to_have_count(
        2
    )  # the greeting and the first answer: no bot bubble, no error
    assert len(llm.chat_requests()) == calls

    # The agent replies (escaped, within a few seconds), with a typing indicator first.
    agent.fill("#reply-text", "typing")
    expect(widget.locator(".typing")).to_contain_text("typing")
    agent.fill(
        "#reply-text", "Hello, I am Alice <img src=x onerror=window.__xss=1>. Try another socket."
    )
    started = time.monotonic()
    agent.press("#reply-text", "Enter")
    expect(widget.locator(".msg.agent")).to_contain_text(
        "Hello, I am Alice <img src=x onerror=window.__xss=1>."
    )
    assert time.monotonic() - started < 5  # under a second on loopback; generous for a busy CI box
    assert visitor.evaluate("window.__xss") is None

    widget.locator("#parley-panel").screenshot(path=str(artifact_path("widget.png")))
    agent.screenshot(path=str(artifact_path("agent-console.png")))

    # A reload keeps the history, through the visitor token in localStorage.
    visitor.reload()
    widget = widget_of(visitor)
    widget.locator("button.launcher").click()
    expect(widget.locator(".msg.agent")).to_contain_text("Hello, I am Alice")
    expect(widget.locator(".msg.bot").nth(1)).to_contain_text(FIRST_ANSWER)

    # 3. The agent returns the conversation to the bot; the bot answers the next question, streamed, with a
    # history that includes the agent's reply.
    agent.get_by_role("button", name="Return to bot").click()
    expect(widget.locator(".log")).to_contain_text("chatting with the assistant again")
    condensed = {
        "standalone_question": "How should I store a Lumen battery in winter?",
        "keywords": ["winter"],
    }
    second = scripted_answer(
        found_answer(
            str(shop.winter.pk), answer=SECOND_ANSWER, sentence=WINTER.split(". ")[0] + "."
        ),
        words_before_pause=14,
    )
    llm.enqueue(Reply.json(condensed), second.reply)
    answer = widget_ask(widget, "And how should I store it over the winter?")
    expect(answer).to_have_text(second.shown)
    second.reply.resume.set()
    expect(answer).to_have_text(SECOND_ANSWER)
    expect(widget.locator(".msg.bot").last.locator(".tools button.cite").first).to_contain_text("1")
    answered_with = json.dumps(llm.chat_requests()[-1].messages)
    assert (
        "Try another socket." in answered_with and "My charger light stays orange." in answered_with
    )

    conversation = Conversation.objects.get(bot=shop.bot)
    assert conversation.owner == "bot"
    assert list(conversation.owner_events.values_list("to_owner", flat=True)) == [
        "waiting_agent",
        "agent",
        "bot",
    ]


def test_an_answer_stream_killed_mid_way_resumes_with_last_event_id_and_shows_the_answer_once(
    browser: Browser, shop: Shop, llm: ScriptedLLMServer
) -> None:
    with CuttingProxy(upstream_port=urlsplit(shop.base).port or 80) as proxy:
        demo_widget_ensure(bot=shop.bot, origins=(proxy.base_url,))
        page = browser_context(browser).new_page()
        resumes: list[Request] = []
        page.on(
            "request",
            lambda r: (
                resumes.append(r) if re.search(r"/api/v1/streams/\w+/events$", r.url) else None
            ),
        )
        widget = widget_open(page, proxy.base_url)

        scripted = scripted_answer(
            found_answer(
                str(shop.charging.pk),
                answer=THREE_SENTENCES,
                sentence=CHARGING.split(". ")[0] + ".",
            ),
            words_before_pause=21,
            token_delay=0.05,
        )
        llm.enqueue(scripted.reply)
        # The proxy kills the answer's connection right after its second text fragment (and half a frame).
        cut = proxy.cut_after(marker=b"event: tool_partial_update", count=2)
        answer = widget_ask(widget, "How long does it take to charge the battery?")

        # The widget reconnected after the last event it had, and shows exactly what was streamed so far:
        # nothing twice, nothing missing.
        expect(answer).to_have_text(scripted.shown, timeout=FIRST_ANSWER_TIMEOUT_MS)
        assert cut.is_set()

        scripted.reply.resume.set()
        expect(answer).to_have_text(THREE_SENTENCES)
        # Streamed sentence by sentence, the cut stream is idle while the model is held: the widget's one
        # resumption (after the last event it had) may come once the model writes again.
        assert len(resumes) == 1
        last_event_id = resumes[0].all_headers().get("last-event-id", "")
        assert re.fullmatch(r"\d+-\d+(\.\d+)?", last_event_id), last_event_id
        expect(widget.locator(".msg.bot").last.locator(".tools button.cite").first).to_contain_text(
            "1"
        )
        log_text = widget.locator(".log").inner_text()
        assert (
            log_text.count("A full charge takes") == 1
            and log_text.count("once the light turns green") == 1
        )
        assert widget.locator(".msg.bot").count() == 2  # the greeting and one answer
