"""The Telegram connector in this process, against a local server speaking the Bot API: the webhook's
secret token (401 otherwise), a message answered once however often Telegram redelivers it, the answer
posted at its first words and edited into the whole answer. The handoff round trip, relayed by the
real worker, is in test_relay_worker.py."""

from __future__ import annotations

import pytest
from django.test import Client

from bots.models import Bot
from connectors.models import Channel, InboundEvent
from connectors.services import inbound_process
from conversations.models import Conversation, Turn
from tests.connectors.conftest import telegram_channel_make
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
