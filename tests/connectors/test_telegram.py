"""The Telegram connector in this process, against a local server speaking the Bot API: the webhook's
secret token (401 otherwise), a message answered once however often Telegram redelivers it, the answer
posted at its first words and edited into the whole answer, and a handoff round trip (the relay task
the handoff app asks for, run here)."""

from __future__ import annotations

import pytest
from django.test import Client

from bots.models import Bot
from connectors.models import Channel, InboundEvent
from connectors.services import inbound_process
from connectors.tasks import conversation_relay_task
from conversations.models import Conversation, Turn
from handoff.services import (
    agent_message_post,
    agent_profile_update,
    handoff_claim,
    handoff_return_to_bot,
)
from tests.connectors.conftest import telegram_channel_make
from tests.support.factories import BotFactory, UserFactory
from tests.support.telegram_server import WEBHOOK_SECRET, TelegramServer, telegram_update

pytestmark = pytest.mark.django_db

CHAT = 424242


def _post(channel: Channel, body: bytes, secret: str | None = WEBHOOK_SECRET) -> int:
    headers = {"X-Telegram-Bot-Api-Secret-Token": secret} if secret is not None else {}
    response = Client().post(
        f"/channels/{channel.pk}/telegram/webhook",
        data=body,
        content_type="application/json",
        headers=headers,
    )
    return int(response.status_code)


def test_the_secret_token_is_required(bot: Bot, telegram: TelegramServer) -> None:
    channel = telegram_channel_make(bot=bot, server=telegram)
    body = telegram_update(chat_id=CHAT, message_id=1, text="Hello")
    assert _post(channel, body, secret="wrong") == 401
    assert _post(channel, body, secret=None) == 401
    assert not InboundEvent.objects.exists() and not Conversation.objects.exists()
    assert (
        Client().post("/channels/00000000-0000-0000-0000-000000000000/telegram/webhook").status_code
        == 404
    )


def test_a_message_is_answered_once_written_as_it_streams(
    bot: Bot, telegram: TelegramServer
) -> None:
    channel = telegram_channel_make(bot=bot, server=telegram)
    body = telegram_update(chat_id=CHAT, message_id=7, text="Hello there!")
    assert _post(channel, body) == 200
    assert _post(channel, body) == 200  # a redelivery
    event = InboundEvent.objects.get()
    inbound_process(event_id=event.pk)
    inbound_process(event_id=event.pk)
    turn = Turn.objects.get()
    assert (
        turn.conversation.channel == "telegram" and turn.client_message_id == f"telegram:{CHAT}:7"
    )
    (message,) = telegram.chat(str(CHAT))
    assert message.text == turn.reply_text
    assert message.edits[0].endswith(" …") and len(message.edits) >= 2  # posted early, then edited


def test_a_handoff_round_trip_in_the_chat(telegram: TelegramServer) -> None:
    bot = BotFactory(name="Lumi", escalation_allowed=True)
    channel = telegram_channel_make(bot=bot, server=telegram)
    assert (
        _post(
            channel, telegram_update(chat_id=CHAT, message_id=1, text="I want to talk to a human")
        )
        == 200
    )
    inbound_process(event_id=InboundEvent.objects.get().pk)
    conversation = Conversation.objects.get()
    assert conversation.owner == "waiting_agent"
    agent = UserFactory(username="alice")
    agent_profile_update(user=agent, display_name="Alice")
    handoff_claim(conversation_id=conversation.pk, agent=agent)
    agent_message_post(
        conversation_id=conversation.pk, agent=agent, text="Which charger do you use?"
    )
    handoff_return_to_bot(conversation_id=conversation.pk, agent=agent)
    conversation_relay_task(str(conversation.pk))  # what the worker runs after each commit
    texts = [m.text for m in telegram.chat(str(CHAT))]
    assert texts[-4:] == [
        "_Waiting for an agent…_",
        "_Alice joined the conversation._",
        "*Alice*: Which charger do you use?",
        "_You are chatting with the assistant again._",
    ]
