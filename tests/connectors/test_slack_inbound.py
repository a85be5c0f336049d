"""The Slack connector in this process (no worker): the signed Events API edge (401, 404, the URL
challenge, a retry stored once), the answer written in the thread, and the outbox's retries on 429/5xx
with Slack's Retry-After. The worker's end-to-end runs are in test_slack_flows.py."""

from __future__ import annotations

import json
import time
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from bots.models import Bot
from connectors.models import Channel, InboundEvent, OutboxMessage
from connectors.services import inbound_process, thread_deliver
from conversations.models import Conversation, Turn
from rag.models import Document
from tests.connectors.conftest import slack_channel_make
from tests.support.slack_server import (
    Failure,
    SlackServer,
    slack_event_body,
    slack_mention,
    slack_signed_headers,
)

pytestmark = pytest.mark.django_db


def slack_event_post(
    client: Client, channel: Channel, body: bytes, headers: dict[str, str]
) -> object:
    return client.post(
        f"/channels/{channel.pk}/slack/events",
        data=body,
        content_type="application/json",
        headers={k: v for k, v in headers.items() if k != "Content-Type"},
    )


def test_bad_missing_or_replayed_signatures_are_refused_and_store_nothing(
    bot: Bot, slack: SlackServer
) -> None:
    channel = slack_channel_make(bot=bot, server=slack)
    client = Client()
    body = slack_event_body(slack_mention(channel="C1", ts="100.000001", text="Hello"))
    wrong = slack_signed_headers(body, secret="not-the-secret")
    replayed = slack_signed_headers(
        body, timestamp=int(time.time()) - 6 * 60
    )  # Slack's window: 5 min
    for headers in (wrong, replayed, {}, {**wrong, "X-Slack-Request-Timestamp": "soon"}):
        response = slack_event_post(client, channel, body, headers)
        assert response.status_code == 401, headers
        assert response.json()["code"] == "signature_refused"
    tampered = slack_signed_headers(body)
    assert (
        slack_event_post(client, channel, body.replace(b"Hello", b"Hullo"), tampered).status_code
        == 401
    )
    assert not InboundEvent.objects.exists() and not Conversation.objects.exists()

    # Unknown, disabled or other-kind channel ids: 404 (before any signature is looked at).
    other = Client().post(
        "/channels/00000000-0000-0000-0000-000000000000/slack/events",
        data=body,
        content_type="application/json",
    )
    assert other.status_code == 404 and other.json()["code"] == "channel_not_found"
    assert Client().post(f"/channels/{channel.pk}/email/inbound", data={}).status_code == 404
    Channel.objects.filter(pk=channel.pk).update(enabled=False)
    assert slack_event_post(client, channel, body, slack_signed_headers(body)).status_code == 404


def test_the_url_verification_challenge_is_answered(bot: Bot, slack: SlackServer) -> None:
    channel = slack_channel_make(bot=bot, server=slack)
    body = json.dumps(
        {
            "type": "url_verification",
            "challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
        }
    ).encode()
    response = slack_event_post(Client(), channel, body, slack_signed_headers(body))
    assert response.status_code == 200
    assert response.json() == {"challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"}


def test_a_mention_is_answered_in_its_thread_once_however_often_slack_retries(
    bot: Bot, slack: SlackServer
) -> None:
    channel = slack_channel_make(bot=bot, server=slack)
    body = slack_event_body(slack_mention(channel="C1", ts="200.000001", text="Hello there!"))
    for retry in ("", "1", "2"):  # Slack's retries carry the same event (and X-Slack-Retry-Num)
        headers = {**slack_signed_headers(body), **({"X-Slack-Retry-Num": retry} if retry else {})}
        assert slack_event_post(Client(), channel, body, headers).status_code == 200
    event = InboundEvent.objects.get()
    assert event.client_message_id == "slack:C1:200.000001" and event.text == "Hello there!"
    conversation = Conversation.objects.get()
    assert conversation.channel == "slack" and conversation.visitor_id == "UVISITOR"

    assert inbound_process(event_id=event.pk) == "idle"
    assert (
        inbound_process(event_id=event.pk) == "idle"
    )  # a second run (a lost ack) sends nothing new
    turn = Turn.objects.get(conversation=conversation)
    assert turn.user_text == "Hello there!" and turn.reply_text
    replies = slack.thread("C1", "200.000001")
    assert [m.text for m in replies] == [turn.reply_text.replace("&", "&amp;")]
    assert OutboxMessage.objects.get().status == OutboxMessage.Status.SENT


def test_429_waits_for_retry_after_and_5xx_backs_off_and_nothing_is_lost(
    bot: Bot, slack: SlackServer
) -> None:
    channel = slack_channel_make(bot=bot, server=slack)
    body = slack_event_body(slack_mention(channel="C2", ts="300.000001", text="Hello!"))
    assert slack_event_post(Client(), channel, body, slack_signed_headers(body)).status_code == 200
    event = InboundEvent.objects.get()
    slack.outage = Failure(
        429, retry_after="2"
    )  # the streamed edits fail too: the outbox has it all
    before = timezone.now()
    assert inbound_process(event_id=event.pk) == "waiting"
    slack.outage = None
    row = OutboxMessage.objects.get()
    assert row.status == "pending" and row.attempts == 1 and "ratelimited" in row.last_error
    assert row.next_attempt_at is not None
    assert timedelta(seconds=1.9) <= row.next_attempt_at - before <= timedelta(seconds=3)
    calls = len(slack.calls)
    assert thread_deliver(thread_id=row.thread_id).outcome == "waiting"  # not before Retry-After
    assert len(slack.calls) == calls and slack.thread("C2", "300.000001") == []

    OutboxMessage.objects.filter(pk=row.pk).update(next_attempt_at=timezone.now())
    slack.fail_next(Failure(503))
    assert thread_deliver(thread_id=row.thread_id).outcome == "waiting"
    row.refresh_from_db()
    assert row.attempts == 2 and row.next_attempt_at > timezone.now()  # backoff without Retry-After

    OutboxMessage.objects.filter(pk=row.pk).update(next_attempt_at=timezone.now())
    assert thread_deliver(thread_id=row.thread_id).outcome == "idle"
    row.refresh_from_db()
    assert row.status == "sent" and row.attempts == 3
    assert len(slack.thread("C2", "300.000001")) == 1


def test_what_the_app_does_not_answer_is_ignored_and_files_are_taken_where_allowed(
    bot: Bot, slack: SlackServer
) -> None:
    channel = slack_channel_make(bot=bot, server=slack, accept_attachments=True)
    ignored = [
        {
            "type": "message",
            "channel": "C3",
            "channel_type": "channel",
            "user": "U1",
            "ts": "1.1",
            "text": "chat",
        },
        {
            "type": "message",
            "channel": "C3",
            "user": "U1",
            "ts": "1.2",
            "thread_ts": "9.9",
            "text": "not our thread",
        },
        {**slack_mention(channel="C3", ts="1.3", text="hi"), "bot_id": "B1"},  # a bot's own message
        {**slack_mention(channel="C3", ts="1.4", text="hi"), "subtype": "message_changed"},
    ]
    for event in ignored:
        body = slack_event_body(event)
        assert (
            slack_event_post(Client(), channel, body, slack_signed_headers(body)).status_code == 200
        )
    assert not InboundEvent.objects.exists() and not Conversation.objects.exists()

    slack.files["manual.txt"] = b"The charger light turns green when the battery is full."
    event = {
        **slack_mention(channel="C3", ts="2.1", text="Here is my manual"),
        "files": [
            {
                "name": "manual.txt",
                "mimetype": "text/plain",
                "url_private_download": slack.file_url("manual.txt"),
            }
        ],
    }
    body = slack_event_body(event)
    assert slack_event_post(Client(), channel, body, slack_signed_headers(body)).status_code == 200
    inbound = InboundEvent.objects.get()
    inbound_process(event_id=inbound.pk)
    document = Document.objects.get()
    assert document.conversation_id == inbound.thread.conversation_id
    texts = [m.text for m in slack.thread("C3", "2.1")]
    assert texts[0] == "_I have added manual.txt to our conversation._" and len(texts) == 2
