"""The Slack connector end to end with the real worker: Slack's signed event posted to the edge, the
worker answering through the one entry point, the local Slack server receiving the answer streamed into
the thread (chat.postMessage, then chat.update), and a handoff round trip through the same thread."""

from __future__ import annotations

import json
import threading
import time

import pytest
from django.test import Client

from bots.models import Bot
from connectors.models import Channel
from conversations.models import Conversation, Turn
from handoff.models import Message
from handoff.services import (
    agent_message_post,
    agent_profile_update,
    handoff_claim,
    handoff_return_to_bot,
)
from tests.connectors.conftest import slack_channel_make
from tests.support.answers import found_answer
from tests.support.factories import BotFactory, UserFactory
from tests.support.knowledge import document_ingested
from tests.support.llm_server import Reply, ScriptedLLMServer
from tests.support.processes import wait_for
from tests.support.slack_server import (
    SlackMessage,
    SlackServer,
    slack_event_body,
    slack_mention,
    slack_signed_headers,
    slack_thread_reply,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker, pytest.mark.timeout(240)]

CHARGING = (
    "A Lumen battery charges from empty to full in about four hours with the supplied charger. "
    "Charge it indoors, at a temperature between 10 and 25 degrees, on a hard surface."
)
ANSWER = (
    "A full charge takes about four hours with the supplied charger, and you should charge the "
    "battery indoors between 10 and 25 degrees on a hard surface."
)
# The same answer in two sentences, for the streaming test.
STREAMED = (
    "A full charge takes about four hours with the supplied charger. You should charge the battery "
    "indoors between 10 and 25 degrees on a hard surface."
)
FIRST_ANSWER_TIMEOUT = 120  # the worker's first answer of a session loads the embedding model


def event_post(channel: Channel, event: dict[str, object]) -> None:
    body = slack_event_body(event)
    headers = slack_signed_headers(body)
    response = Client().post(
        f"/channels/{channel.pk}/slack/events",
        data=body,
        content_type="application/json",
        headers={k: v for k, v in headers.items() if k != "Content-Type"},
    )
    assert response.status_code == 200


def test_an_answer_is_written_into_the_thread_as_it_streams_with_its_sources(
    celery_worker: str, llm: ScriptedLLMServer, slack: SlackServer
) -> None:
    bot = BotFactory(
        name="Lumi", llm_provider="openai", llm_model="scripted-model", llm_timeout_seconds=120
    )
    document = document_ingested(
        workspace=bot.workspace,
        text=f"# Charging\n\n{CHARGING}",
        bots=[bot],
        filename="charging.md",
    )
    chunk = document.chunks.get()
    channel = slack_channel_make(bot=bot, server=slack)
    content = json.dumps(
        found_answer(str(chunk.pk), answer=STREAMED, sentence=CHARGING.split(". ")[0] + ".")
    )
    resume = threading.Event()
    tokens = content.split(" ")
    # Held once the first sentence is complete (its end followed by more text): an LLM answer streams
    # sentence by sentence, each once the support check passed it (docs/decisions/support-check-streaming.md).
    held_at = next(i for i, token in enumerate(tokens) if "charger." in token) + 2
    # Slack's edits are throttled (one each STREAM_EDIT_SECONDS, 0.5 s, when a token arrives): the model
    # stalls a second after the sentence's end, so the token that releases it is shown before the hold.
    llm.enqueue(
        Reply(
            content=content,
            token_delay=0.02,
            lull=(held_at - 1, 1.0),
            pause_after=held_at,
            resume=resume,
        )
    )

    event_post(
        channel, slack_mention(channel="C10", ts="1000.000001", text="How long does charging take?")
    )

    # While the model is held mid-answer, the thread shows the first part of it.
    def partial(thread: list[SlackMessage]) -> bool:
        return len(thread) == 1 and "four hours" in thread[0].text and thread[0].text.endswith("…")

    shown = slack.wait_thread(
        "C10", "1000.000001", partial, timeout=FIRST_ANSWER_TIMEOUT, what="a partial answer"
    )
    assert not Turn.objects.filter(completed_at__isnull=False).exists()
    assert STREAMED.startswith(shown[0].text.removesuffix("…").strip())
    assert "degrees" not in shown[0].text  # the second sentence, unfinished, is not shown yet
    resume.set()

    def final(thread: list[SlackMessage]) -> bool:
        return len(thread) == 1 and thread[0].text == STREAMED

    (message,) = slack.wait_thread("C10", "1000.000001", final, what="the whole answer")
    assert (
        len(message.edits) >= 2 and message.edits[0] != message.edits[-1]
    )  # edited, not re-posted
    assert "Sources: [1] " in message.context_text() and document.title in message.context_text()
    turn = Turn.objects.get()
    assert turn.conversation.channel == Conversation.Channel.SLACK
    assert turn.client_message_id == "slack:C10:1000.000001"


def test_a_handoff_round_trip_through_the_slack_thread(
    celery_worker: str, slack: SlackServer
) -> None:
    bot: Bot = BotFactory(name="Lumi", escalation_allowed=True)
    channel = slack_channel_make(bot=bot, server=slack)
    agent = UserFactory(username="alice")
    agent_profile_update(user=agent, display_name="Alice")
    thread = ("C20", "2000.000001")

    def texts() -> list[str]:
        return [m.text for m in slack.thread(*thread)]

    def shows(text: str, timeout: float = 60) -> None:
        wait_for(lambda: any(text in t for t in texts()), timeout=timeout, what=repr(text))

    event_post(
        channel, slack_mention(channel="C20", ts="2000.000001", text="I want to talk to a human")
    )
    shows("Waiting for an agent", timeout=FIRST_ANSWER_TIMEOUT)
    conversation = Conversation.objects.get()
    assert conversation.owner == Conversation.Owner.WAITING_AGENT

    handoff_claim(conversation_id=conversation.pk, agent=agent)
    shows("Alice joined the conversation.")

    agent_message_post(
        conversation_id=conversation.pk, agent=agent, text="Try another socket, please."
    )
    shows("*Alice*: Try another socket, please.")

    # The visitor writes in the thread (no mention): it goes to the agent, the bot stays muted.
    event_post(
        channel,
        slack_thread_reply(
            channel="C20",
            ts="2000.000009",
            thread_ts="2000.000001",
            text="It still does not charge.",
        ),
    )
    wait_for(
        lambda: Message.objects.filter(role="visitor", text="It still does not charge.").exists(),
        timeout=60,
        what="the visitor's message forwarded to the agent",
    )
    assert Turn.objects.count() == 1

    turns = Turn.objects.count()
    handoff_return_to_bot(conversation_id=conversation.pk, agent=agent)
    shows("You are chatting with the assistant again.")
    # The bot answers what the visitor wrote to the agent (the pending answer), in the thread.
    wait_for(lambda: Turn.objects.count() == turns + 1, timeout=60, what="the pending answer")
    pending = Turn.objects.latest("created_at")
    assert pending.client_message_id.startswith("handoff/")
    wait_for(
        lambda: Turn.objects.filter(pk=pending.pk, completed_at__isnull=False).exists(),
        timeout=60,
        what="the pending answer's completion",
    )
    pending.refresh_from_db()
    answer = pending.reply_text.replace("&", "&amp;")
    assert answer
    shows(answer)

    order = texts()
    index = lambda part: next(i for i, t in enumerate(order) if part in t)  # noqa: E731
    assert (
        index("Waiting") < index("joined") < index("Try another socket") < index("assistant again")
    )
    assert index("assistant again") < index(answer)
    assert not any(
        "It still does not charge" in t for t in order
    )  # the visitor's own words are not echoed
    time.sleep(1)
    assert len(texts()) == len(order)  # nothing sent twice
