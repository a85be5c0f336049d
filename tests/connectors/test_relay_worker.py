"""WhatsApp, Telegram and Teams end to end with the real worker, as Slack's and e-mail's are: the
platform's signed request posted to the edge, the worker answering through the one entry point, and a
handoff round trip whose notices and agent's reply the worker relays through the platform's local
server (the relay task the handoff app asks for after each commit, not called by the test)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.test import Client

from bots.models import Bot
from connectors.models import Channel
from conversations.models import Conversation
from handoff.services import (
    agent_message_post,
    agent_profile_update,
    handoff_claim,
    handoff_return_to_bot,
)
from tests.connectors.conftest import (
    teams_channel_make,
    telegram_channel_make,
    whatsapp_channel_make,
)
from tests.connectors.test_slack_flows import FIRST_ANSWER_TIMEOUT
from tests.support.factories import BotFactory, UserFactory
from tests.support.processes import wait_for
from tests.support.teams_server import TeamsServer, teams_activity, teams_auth_header
from tests.support.telegram_server import WEBHOOK_SECRET, TelegramServer, telegram_update
from tests.support.whatsapp_server import (
    WhatsAppServer,
    whatsapp_signed_headers,
    whatsapp_webhook_body,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker, pytest.mark.timeout(300)]

RIDER, CHAT, TEAMS_CHAT = "33612345678", 424242, "a:1rider-worker-chat"


@dataclass(frozen=True)
class Platform:
    """How a test writes as the visitor on one platform, and reads what the visitor was sent."""

    channel: Callable[[], Channel]
    write: Callable[[Channel, str, str], None]
    texts: Callable[[], list[str]]


def _posted(channel: Channel, path: str, body: bytes, headers: dict[str, str]) -> None:
    response = Client().post(
        f"/channels/{channel.pk}/{path}",
        data=body,
        content_type="application/json",
        headers=headers,
    )
    assert response.status_code == 200, response.content


def whatsapp_platform(server: WhatsAppServer, bot: Bot) -> Platform:
    def write(channel: Channel, message_id: str, text: str) -> None:
        body = whatsapp_webhook_body(sender=RIDER, message_id=f"wamid.{message_id}", text=text)
        _posted(channel, "whatsapp/webhook", body, whatsapp_signed_headers(body))

    return Platform(
        channel=lambda: whatsapp_channel_make(bot=bot, server=server),
        write=write,
        texts=lambda: server.texts(RIDER),
    )


def telegram_platform(server: TelegramServer, bot: Bot) -> Platform:
    def write(channel: Channel, message_id: str, text: str) -> None:
        body = telegram_update(chat_id=CHAT, message_id=int(message_id), text=text)
        _posted(
            channel, "telegram/webhook", body, {"X-Telegram-Bot-Api-Secret-Token": WEBHOOK_SECRET}
        )

    return Platform(
        channel=lambda: telegram_channel_make(bot=bot, server=server),
        write=write,
        texts=lambda: [m.text for m in server.chat(str(CHAT))],
    )


def teams_platform(server: TeamsServer, bot: Bot) -> Platform:
    def write(channel: Channel, message_id: str, text: str) -> None:
        activity = teams_activity(
            server=server, conversation_id=TEAMS_CHAT, activity_id=message_id, text=text
        )
        headers = {"Authorization": teams_auth_header(server)}
        _posted(channel, "teams/messages", json.dumps(activity).encode(), headers)

    return Platform(
        channel=lambda: teams_channel_make(bot=bot, server=server),
        write=write,
        texts=lambda: [m.shown() for m in server.conversation(TEAMS_CHAT)],
    )


@pytest.mark.parametrize("kind", ["whatsapp", "telegram", "teams"])
def test_a_handoff_round_trip_relayed_by_the_worker(
    kind: str,
    celery_worker: str,
    whatsapp: WhatsAppServer,
    telegram: TelegramServer,
    teams: TeamsServer,
) -> None:
    bot = BotFactory(name="Lumi", escalation_allowed=True)
    platform = {
        "whatsapp": lambda: whatsapp_platform(whatsapp, bot),
        "telegram": lambda: telegram_platform(telegram, bot),
        "teams": lambda: teams_platform(teams, bot),
    }[kind]()
    channel = platform.channel()

    def shows(text: str, timeout: float = 60) -> None:
        wait_for(lambda: any(text in t for t in platform.texts()), timeout=timeout, what=repr(text))

    platform.write(channel, "101", "I want to talk to a human")
    platform.write(channel, "101", "I want to talk to a human")  # the platform's redelivery
    shows("Waiting for an agent", timeout=FIRST_ANSWER_TIMEOUT)
    conversation = Conversation.objects.get()
    assert conversation.owner == Conversation.Owner.WAITING_AGENT
    assert conversation.channel == kind

    agent = UserFactory(username="alice")
    agent_profile_update(user=agent, display_name="Alice")
    handoff_claim(conversation_id=conversation.pk, agent=agent)
    shows("Alice joined the conversation.")
    agent_message_post(conversation_id=conversation.pk, agent=agent, text="Which charger?")
    signed = "**Alice**: Which charger?" if kind == "teams" else "*Alice*: Which charger?"
    shows(signed)
    handoff_return_to_bot(conversation_id=conversation.pk, agent=agent)
    shows("You are chatting with the assistant again.")

    texts = platform.texts()
    index = lambda part: next(i for i, t in enumerate(texts) if part in t)  # noqa: E731
    assert index("Waiting") < index("joined") < index("Which charger?") < index("assistant again")
    assert sum("Waiting for an agent" in t for t in texts) == 1  # the redelivery answered once
    assert conversation.turns.count() == 1
