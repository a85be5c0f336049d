"""E-mail in by IMAP polling, against a real IMAP server (pymap) started by the tests: an unseen
message accepted once however often the mailbox is polled, flagged seen only once stored, answered by
SMTP in its thread; a reply in the thread continues the conversation; a message that is not a usable
e-mail stays in the mailbox; a mailbox that refuses the login raises a clear error and loses nothing."""

from __future__ import annotations

import pytest

from bots.models import Bot
from connectors.errors import MailboxUnavailable
from connectors.models import Channel, InboundEvent
from connectors.services import channel_imap_poll, imap_channels, inbound_process
from connectors.tasks import channel_imap_poll_task
from conversations.models import Conversation, Turn
from tests.connectors.conftest import email_channel_make, mail_make
from tests.support.imap_server import ImapServer
from tests.support.smtp_server import SmtpServer, mail_text

pytestmark = pytest.mark.django_db

RIDER = "rider@example.org"


def seen(imap: ImapServer) -> list[bool]:
    return ["\\Seen" in message.flags for message in imap.messages()]


def test_an_unseen_message_is_accepted_once_and_answered_in_its_thread(
    bot: Bot, imap: ImapServer, smtp: SmtpServer
) -> None:
    channel = email_channel_make(bot=bot, server=smtp, imap=imap)
    assert imap_channels() == [str(channel.pk)]
    mime, first_id = mail_make(text="Hello, how do I charge the battery?")
    imap.deliver(mime)
    assert seen(imap) == [False]

    assert channel_imap_poll(channel_id=str(channel.pk)) == 1
    assert seen(imap) == [True]
    # Found again (another poller, the flag lost): the same Message-ID is not taken twice.
    with imap.mailbox() as mailbox:
        mailbox.flag([m.uid for m in mailbox.fetch(mark_seen=False) if m.uid], "\\Seen", False)
    assert channel_imap_poll(channel_id=str(channel.pk)) == 0
    assert channel_imap_poll(channel_id=str(channel.pk)) == 0
    event = InboundEvent.objects.get()
    assert event.text == "Charging\n\nHello, how do I charge the battery?"
    inbound_process(event_id=event.pk)
    turn = Turn.objects.get()
    assert turn.conversation.channel == Conversation.Channel.EMAIL
    (answer,) = smtp.wait_to(RIDER, lambda mails: len(mails) == 1)
    assert answer["In-Reply-To"] == first_id
    assert mail_text(answer).strip().startswith(turn.reply_text.strip())

    # The rider answers in the thread, quoting: the same conversation, the quote cut.
    reply, _ = mail_make(
        text="Thanks. And in winter?\n\nOn Mon, Lumi <help@lumen.example> wrote:\n> earlier",
        subject="Re: Charging",
        in_reply_to=answer["Message-ID"],
        references=f"{first_id} {answer['Message-ID']}",
    )
    imap.deliver(reply)
    assert channel_imap_poll(channel_id=str(channel.pk)) == 1
    later = InboundEvent.objects.latest("received_at")
    assert later.thread_id == event.thread_id and later.text == "Thanks. And in winter?"
    assert Conversation.objects.count() == 1


def test_what_is_not_an_email_stays_and_a_refused_login_loses_nothing(
    bot: Bot, imap: ImapServer, smtp: SmtpServer
) -> None:
    channel = email_channel_make(bot=bot, server=smtp, imap=imap)
    imap.deliver(
        b"From: rider@example.org\r\nSubject: no id\r\n\r\nA message without Message-ID.\r\n"
    )
    assert channel_imap_poll(channel_id=str(channel.pk)) == 0
    assert len(imap.messages()) == 1 and not InboundEvent.objects.exists()  # left where it was

    Channel.objects.filter(pk=channel.pk).update(secrets={"imap_password": "wrong"})
    mime, _ = mail_make(text="Is anyone there?")
    imap.deliver(mime)
    with pytest.raises(MailboxUnavailable):
        channel_imap_poll(channel_id=str(channel.pk))
    assert channel_imap_poll_task(str(channel.pk)) == 0  # the beat's task logs it and goes on
    assert seen(imap) == [True, False]  # the new message waits, unseen, for a working poll
    assert not InboundEvent.objects.exists()
