"""The WhatsApp connector (Cloud API) in this process, against a local server speaking the Graph API:
Meta's subscription check, X-Hub-Signature-256 (401 otherwise), a message answered once however often
Meta redelivers it, a handoff round trip (the relay task the handoff app asks for, run here), and the
24-hour window: outside it a notice waits for the visitor, or goes out as the channel's template."""

from __future__ import annotations

import time

import pytest
from django.test import Client

from bots.models import Bot
from connectors.models import Channel, ChannelThread, InboundEvent, OutboxMessage
from connectors.services import inbound_process
from connectors.tasks import conversation_relay_task
from conversations.models import Conversation, Turn
from handoff.models import Message
from handoff.services import (
    agent_message_post,
    agent_profile_update,
    handoff_claim,
    handoff_return_to_bot,
)
from tests.connectors.conftest import whatsapp_channel_make
from tests.support.factories import BotFactory, UserFactory
from tests.support.whatsapp_server import (
    WhatsAppServer,
    whatsapp_signed_headers,
    whatsapp_webhook_body,
)

pytestmark = pytest.mark.django_db

RIDER = "33612345678"


def _post(channel: Channel, body: bytes, headers: dict[str, str]) -> int:
    response = Client().post(
        f"/channels/{channel.pk}/whatsapp/webhook",
        data=body,
        content_type="application/json",
        headers=headers,
    )
    return int(response.status_code)


def _deliver(channel: Channel, *, sender: str, message_id: str, text: str) -> InboundEvent:
    body = whatsapp_webhook_body(sender=sender, message_id=message_id, text=text)
    assert _post(channel, body, whatsapp_signed_headers(body)) == 200
    return InboundEvent.objects.get(channel=channel, message_id=message_id)


def test_the_subscription_check_and_signatures(bot: Bot, whatsapp: WhatsAppServer) -> None:
    channel = whatsapp_channel_make(bot=bot, server=whatsapp)
    url = f"/channels/{channel.pk}/whatsapp/webhook"
    ok = Client().get(
        url,
        {"hub.mode": "subscribe", "hub.verify_token": "verify-me", "hub.challenge": "1158201444"},
    )
    assert ok.status_code == 200 and ok.content == b"1158201444"
    wrong = Client().get(
        url, {"hub.mode": "subscribe", "hub.verify_token": "nope", "hub.challenge": "1"}
    )
    assert wrong.status_code == 403

    body = whatsapp_webhook_body(sender=RIDER, message_id="wamid.A", text="Hello")
    assert _post(channel, body, whatsapp_signed_headers(body, secret="wrong")) == 401
    assert _post(channel, body, {}) == 401
    assert _post(channel, body.replace(b"Hello", b"Hullo"), whatsapp_signed_headers(body)) == 401
    assert not InboundEvent.objects.exists() and not Conversation.objects.exists()
    assert (
        Client().post("/channels/00000000-0000-0000-0000-000000000000/whatsapp/webhook").status_code
        == 404
    )


def test_a_message_is_answered_once_however_often_meta_redelivers_it(
    bot: Bot, whatsapp: WhatsAppServer
) -> None:
    channel = whatsapp_channel_make(bot=bot, server=whatsapp)
    event = _deliver(channel, sender=RIDER, message_id="wamid.B", text="Hello there!")
    _deliver(channel, sender=RIDER, message_id="wamid.B", text="Hello there!")
    inbound_process(event_id=event.pk)
    inbound_process(event_id=event.pk)
    turn = Turn.objects.get()
    assert turn.conversation.channel == "whatsapp" and turn.client_message_id == "whatsapp:wamid.B"
    assert whatsapp.texts(RIDER) == [turn.reply_text]


def test_a_handoff_round_trip_and_the_24_hour_window(whatsapp: WhatsAppServer) -> None:
    bot = BotFactory(name="Lumi", escalation_allowed=True)
    channel = whatsapp_channel_make(bot=bot, server=whatsapp)
    event = _deliver(channel, sender=RIDER, message_id="wamid.C", text="I want to talk to a human")
    inbound_process(event_id=event.pk)
    conversation = Conversation.objects.get()
    assert conversation.owner == "waiting_agent"
    assert whatsapp.texts(RIDER)[-1] == "_Waiting for an agent…_"

    agent = UserFactory(username="alice")
    agent_profile_update(user=agent, display_name="Alice")
    handoff_claim(conversation_id=conversation.pk, agent=agent)
    conversation_relay_task(str(conversation.pk))  # what the worker runs after the commit
    assert whatsapp.texts(RIDER)[-1] == "_Alice joined the conversation._"

    # The visitor's window closes (25 hours without a message): the agent's reply waits...
    thread = ChannelThread.objects.get()
    thread.address = {**thread.address, "last_inbound_at": time.time() - 25 * 3600}
    thread.save()
    agent_message_post(
        conversation_id=conversation.pk, agent=agent, text="Which charger do you use?"
    )
    assert conversation_relay_task(str(conversation.pk)) == "waiting"
    waiting = OutboxMessage.objects.get(status="pending")
    assert "24-hour window" in waiting.last_error
    assert whatsapp.texts(RIDER)[-1] == "_Alice joined the conversation._"

    # ... until the visitor writes again (to the agent: the bot stays muted), which releases it.
    later = _deliver(channel, sender=RIDER, message_id="wamid.D", text="Are you there?")
    inbound_process(event_id=later.pk)
    assert Message.objects.filter(role="visitor", text="Are you there?").exists()
    assert whatsapp.texts(RIDER)[-1] == "*Alice*: Which charger do you use?"

    # With an approved template, a notice outside the window goes out as that template.
    Channel.objects.filter(pk=channel.pk).update(
        settings={"whatsapp_template": "conversation_update"}
    )
    thread.refresh_from_db()
    thread.address = {**thread.address, "last_inbound_at": time.time() - 25 * 3600}
    thread.save()
    handoff_return_to_bot(conversation_id=conversation.pk, agent=agent)
    conversation_relay_task(str(conversation.pk))
    assert "template:conversation_update" in whatsapp.texts(RIDER)
    template = next(m for m in whatsapp.sent if m["type"] == "template")
    parameter = template["template"]["components"][0]["parameters"][0]["text"]
    assert parameter == "_You are chatting with the assistant again._"
