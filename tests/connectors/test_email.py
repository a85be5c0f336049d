"""The e-mail connector in this process (no worker), against a real SMTP server (aiosmtpd): Mailgun's
signed inbound webhook read by django-anymail (401 on a bad signature or a replayed timestamp), an answer
sent as a reply in the thread, a thread as one conversation with the quoted mail cut from the question,
attachments taken or acknowledged, and SMTP's 4xx retried while a 5xx fails for good."""

from __future__ import annotations

import time

import pytest
from django.utils import timezone

from bots.models import Bot
from connectors.models import InboundEvent, OutboxMessage
from connectors.services import inbound_process, thread_deliver
from conversations.models import Conversation, Turn
from rag.models import Document
from tests.connectors.conftest import email_channel_make, mail_make, mailgun_post
from tests.support.smtp_server import SmtpServer, mail_text

pytestmark = pytest.mark.django_db

RIDER = "rider@example.org"


def test_bad_signatures_and_replayed_timestamps_are_refused_and_store_nothing(
    bot: Bot, smtp: SmtpServer
) -> None:
    channel = email_channel_make(bot=bot, server=smtp)
    mime, _ = mail_make(text="Hello")
    wrong = mailgun_post(channel, mime, key="not-the-key")
    assert wrong.status_code == 401 and wrong.json()["code"] == "signature_refused"
    replayed = mailgun_post(channel, mime, timestamp=int(time.time()) - 6 * 60)
    assert replayed.status_code == 401
    from django.test import Client

    unsigned = Client().post(
        f"/channels/{channel.pk}/email/inbound", data={"body-mime": mime.decode()}
    )
    assert unsigned.status_code == 401
    assert not InboundEvent.objects.exists() and not Conversation.objects.exists()


def test_a_mail_is_answered_once_in_its_thread_and_a_reply_continues_the_conversation(
    bot: Bot, smtp: SmtpServer
) -> None:
    channel = email_channel_make(bot=bot, server=smtp)
    mime, first_id = mail_make(text="Hello, how are you?")
    assert mailgun_post(channel, mime).status_code == 200
    assert mailgun_post(channel, mime).status_code == 200  # the provider's retry: stored once
    event = InboundEvent.objects.get()
    assert inbound_process(event_id=event.pk) == "idle"
    assert inbound_process(event_id=event.pk) == "idle"
    (answer,) = smtp.to(RIDER)
    turn = Turn.objects.get()
    assert turn.conversation.channel == "email" and turn.user_text.startswith("Charging")
    assert answer["Subject"] == "Re: Charging" and answer["From"] == "help@lumen.example"
    assert answer["In-Reply-To"] == first_id and first_id in answer["References"]
    assert mail_text(answer).strip() == turn.reply_text

    # The rider answers the answer, quoting it: the same conversation, the quote cut from the question.
    quoted = "\n".join(f"> {line}" for line in mail_text(answer).splitlines())
    reply_text = f"And in winter?\n\nOn Tue, 1 Dec 2026 at 10:00, Lumen help <help@lumen.example> wrote:\n{quoted}\n"
    mime, second_id = mail_make(
        text=reply_text, subject="Re: Charging", in_reply_to=answer["Message-ID"]
    )
    assert mailgun_post(channel, mime).status_code == 200
    second = InboundEvent.objects.get(message_id=second_id)
    assert second.thread_id == event.thread_id and second.text == "And in winter?"
    inbound_process(event_id=second.pk)
    assert Turn.objects.filter(conversation=turn.conversation).count() == 2
    latest = smtp.to(RIDER)[-1]
    assert latest["In-Reply-To"] == second_id

    # Someone else naming the thread in References starts a conversation of their own.
    mime, _ = mail_make(text="Me too", sender="other@example.net", references=first_id)
    assert mailgun_post(channel, mime).status_code == 200
    assert InboundEvent.objects.get(text="Me too").thread_id != event.thread_id
    assert Conversation.objects.count() == 2


def test_attachments_become_documents_of_the_conversation_only_where_the_channel_allows(
    bot: Bot, smtp: SmtpServer
) -> None:
    closed = email_channel_make(bot=bot, server=smtp)
    manual = (
        "manual.txt",
        b"The charger light turns green when the battery is full.",
        "text/plain",
    )
    mime, _ = mail_make(text="", subject="", attachment=manual)
    assert mailgun_post(closed, mime).status_code == 200
    inbound_process(event_id=InboundEvent.objects.get().pk)
    (ack,) = smtp.to(RIDER)
    assert "cannot read attachments here (manual.txt)" in mail_text(ack)
    assert not Document.objects.exists() and not Turn.objects.exists()

    smtp.reset()
    open_channel = email_channel_make(bot=bot, server=smtp, accept_attachments=True)
    mime, message_id = mail_make(text="Here is my manual.", attachment=manual)
    assert mailgun_post(open_channel, mime).status_code == 200
    event = InboundEvent.objects.get(message_id=message_id)
    inbound_process(event_id=event.pk)
    document = Document.objects.get()
    assert document.conversation_id == event.thread.conversation_id
    assert "added manual.txt to our conversation" in mail_text(smtp.to(RIDER)[0])
    assert Turn.objects.get().user_text.endswith("Here is my manual.")


def test_smtp_4xx_is_retried_and_5xx_fails_that_mail_only(bot: Bot, smtp: SmtpServer) -> None:
    channel = email_channel_make(bot=bot, server=smtp)
    mime, _ = mail_make(text="Hello!")
    assert mailgun_post(channel, mime).status_code == 200
    smtp.refuse_next("451 4.3.0 Try again later")
    assert inbound_process(event_id=InboundEvent.objects.get().pk) == "waiting"
    row = OutboxMessage.objects.get()
    assert row.status == "pending" and "451" in row.last_error and not smtp.to(RIDER)
    OutboxMessage.objects.filter(pk=row.pk).update(next_attempt_at=timezone.now())
    assert thread_deliver(thread_id=row.thread_id).outcome == "idle"
    assert len(smtp.to(RIDER)) == 1

    mime, _ = mail_make(text="Hello again!", in_reply_to=smtp.to(RIDER)[0]["Message-ID"])
    assert mailgun_post(channel, mime).status_code == 200
    smtp.refuse_next("554 5.7.1 Rejected")
    inbound_process(event_id=InboundEvent.objects.latest("received_at").pk)
    failed = OutboxMessage.objects.latest("source_at")
    assert failed.status == "failed" and "554" in failed.last_error
