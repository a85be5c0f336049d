"""The Teams connector in this process, through the Bot Framework SDK against a local Bot Framework
(tests/support/teams_server.py): the JWT of every activity validated as the SDK does it (401 and
nothing stored without one, or with a forged, expired, mis-addressed one), a message answered once
however often it is redelivered, written as it streams, and the answer's sources as an Adaptive Card
sent with the bot's own token."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from bots.models import Bot
from connectors.models import Channel, InboundEvent
from connectors.platforms.base import Outgoing, Source
from connectors.platforms.teams_cards import teams_activities
from connectors.services import inbound_process
from conversations.models import Conversation, Turn
from tests.connectors.conftest import teams_channel_make
from tests.connectors.test_slack_flows import ANSWER, CHARGING
from tests.support.answers import found_answer
from tests.support.factories import BotFactory
from tests.support.knowledge import document_ingested
from tests.support.llm_server import Reply, ScriptedLLMServer
from tests.support.teams_server import TeamsServer, teams_activity, teams_auth_header

pytestmark = pytest.mark.django_db

CONVERSATION = "a:1rider-personal-chat"


def post(channel: Channel | str, activity: dict[str, Any], authorization: str | None) -> int:
    channel_id = channel.pk if isinstance(channel, Channel) else channel
    headers = {"Authorization": authorization} if authorization is not None else {}
    response = Client().post(
        f"/channels/{channel_id}/teams/messages",
        data=json.dumps(activity),
        content_type="application/json",
        headers=headers,
    )
    return int(response.status_code)


def test_an_activity_without_a_valid_bot_framework_token_is_refused(
    bot: Bot, teams: TeamsServer
) -> None:
    channel = teams_channel_make(bot=bot, server=teams)
    activity = teams_activity(server=teams, conversation_id=CONVERSATION, text="Hello")
    refused = [
        None,  # no Authorization header
        "Bearer not-a-jwt",
        teams_auth_header(teams, forged=True),  # signed with a key the metadata does not list
        teams_auth_header(teams, audience="another-bot"),
        teams_auth_header(teams, expired=True),
        teams_auth_header(teams, issuer="https://sts.example.org"),
        # A genuine token for another service URL: replies must not go where the body says.
        teams_auth_header(teams, service_url="http://127.0.0.1:9/"),
    ]
    assert [post(channel, activity, header) for header in refused] == [401] * len(refused)
    spoofed = {**activity, "serviceUrl": "http://169.254.169.254/"}
    assert post(channel, spoofed, teams_auth_header(teams)) == 401
    assert not InboundEvent.objects.exists() and not Conversation.objects.exists()
    assert post("00000000-0000-0000-0000-000000000000", activity, teams_auth_header(teams)) == 404
    # A channel without its app password refuses everything, even a well-signed activity.
    bare = teams_channel_make(bot=bot, server=teams)
    Channel.objects.filter(pk=bare.pk).update(secrets={})
    assert post(bare, activity, teams_auth_header(teams)) == 401


def test_a_message_is_answered_once_as_it_streams_with_its_sources_in_an_adaptive_card(
    llm: ScriptedLLMServer, teams: TeamsServer, settings: Any
) -> None:
    settings.LLM_BASE_URL, settings.LLM_API_KEY = llm.base_url, "test-key"
    bot = BotFactory(
        name="Lumi", llm_provider="openai", llm_model="scripted-model", llm_timeout_seconds=60
    )
    document = document_ingested(
        workspace=bot.workspace, text=f"# Charging\n\n{CHARGING}", bots=[bot], filename="c.md"
    )
    chunk = document.chunks.get()
    sentence = CHARGING.split(". ")[0] + "."
    content = json.dumps(found_answer(str(chunk.pk), answer=ANSWER, sentence=sentence))
    llm.enqueue(Reply(content=content, token_delay=0.01))
    channel = teams_channel_make(bot=bot, server=teams)
    activity = teams_activity(
        server=teams,
        conversation_id=CONVERSATION,
        activity_id="1700000000001",
        text="<at>Lumi</at> How long does charging take?",
    )
    assert post(channel, activity, teams_auth_header(teams)) == 200
    assert post(channel, activity, teams_auth_header(teams)) == 200  # Teams redelivers it
    event = InboundEvent.objects.get()
    assert event.text == "How long does charging take?"
    inbound_process(event_id=event.pk)
    inbound_process(event_id=event.pk)

    turn = Turn.objects.get()
    assert turn.conversation.channel == Conversation.Channel.TEAMS
    assert turn.client_message_id == f"teams:{CONVERSATION}:1700000000001"
    (message,) = teams.conversation(CONVERSATION)
    assert message.reply_to == "1700000000001"
    assert message.edits[0].endswith(" …") and len(message.edits) >= 2  # posted, then edited
    card = message.card()
    assert card is not None and card["type"] == "AdaptiveCard"
    texts = [block["text"] for block in card["body"]]
    assert texts == [ANSWER, "Sources", f"[1] {document.title}"]
    assert len(llm.chat_requests()) == 1


def test_long_answers_are_split_and_only_the_last_piece_carries_the_card() -> None:
    sentence = "A full charge takes about four hours with the supplied charger. "
    outgoing = Outgoing(
        text=sentence * 120, kind="answer", sources=(Source(n=1, title="Charging", page=3),)
    )
    first, second = teams_activities(outgoing)
    assert first.text.endswith("charger.") and not first.attachments
    assert len(first.text) <= 4000 and second.attachments
    card = second.attachments[0].content
    assert card["body"][-1]["text"] == "[1] Charging, p. 3"
    notice = teams_activities(Outgoing(text="Waiting for an agent…", kind="notice"))
    agent = teams_activities(Outgoing(text="Hello", kind="agent", author="Alice"))
    assert (notice[0].text, agent[0].text) == ("_Waiting for an agent…_", "**Alice**: Hello")
