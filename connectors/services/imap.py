"""E-mail in by IMAP polling (`imap-tools`), beside the providers' inbound webhooks: the channel's
mailbox folder read for unseen messages, each accepted like a webhook's (`inbound_accept`: its
Message-ID makes it once), then flagged \\Seen in the mailbox. A message is flagged only once it is
stored, so a poll that dies half-way loses nothing: the next one finds the rest unseen, and what was
stored but not flagged is found again and answered once. Nothing is deleted or moved in the mailbox.

No signature here: the mailbox is the channel's own, reached with its credentials (TLS by default).
"""

from __future__ import annotations

import logging
from imaplib import IMAP4

from anymail.inbound import AnymailInboundMessage
from imap_tools import AND, BaseMailBox, MailBox, MailBoxStartTls, MailBoxUnencrypted
from imap_tools.consts import MailMessageFlags
from imap_tools.errors import ImapToolsError

from connectors.errors import InboundInvalid, MailboxUnavailable
from connectors.models import Channel
from connectors.platforms.email import email_inbound_message
from connectors.services.inbound import inbound_accept

logger = logging.getLogger(__name__)
POLL_MAX_MESSAGES = 50  # one poll; the rest in the next
IMAP_TIMEOUT_SECONDS = 20
SECURITY = ("ssl", "starttls", "none")


def imap_channels() -> list[str]:
    """The ids of the enabled e-mail channels that have a mailbox to poll."""
    channels = Channel.objects.filter(kind=Channel.Kind.EMAIL, enabled=True)
    return [
        str(pk)
        for pk in channels.filter(settings__has_key="imap_host").values_list("pk", flat=True)
    ]


def channel_imap_poll(*, channel_id: str) -> int:
    """Accept the unseen messages of the channel's mailbox folder; returns how many were new."""
    channel = (
        Channel.objects.select_related("bot__workspace")
        .filter(pk=channel_id, kind=Channel.Kind.EMAIL, enabled=True)
        .first()
    )
    if channel is None or not channel.settings.get("imap_host"):
        return 0
    accepted = 0
    try:
        with _mailbox(channel) as mailbox:
            messages = mailbox.fetch(
                AND(seen=False), mark_seen=False, limit=POLL_MAX_MESSAGES, bulk=True
            )
            for message in messages:
                accepted += _accept(channel, raw=message.obj.as_bytes(), uid=message.uid)
                if message.uid:
                    mailbox.flag(message.uid, MailMessageFlags.SEEN, True)
    except (ImapToolsError, IMAP4.error, OSError) as error:  # OSError: refused, TLS, timeouts
        raise MailboxUnavailable(f"{channel}: {error}"[:300]) from error
    return accepted


def _mailbox(channel: Channel) -> BaseMailBox:
    settings = channel.settings
    host, security = str(settings["imap_host"]), str(settings.get("imap_security") or "ssl")
    port = int(settings.get("imap_port") or (993 if security == "ssl" else 143))
    box: BaseMailBox
    if security == "none":
        box = MailBoxUnencrypted(host, port, timeout=IMAP_TIMEOUT_SECONDS)
    elif security == "starttls":
        box = MailBoxStartTls(host, port, timeout=IMAP_TIMEOUT_SECONDS)
    else:
        box = MailBox(host, port, timeout=IMAP_TIMEOUT_SECONDS)
    return box.login(
        str(settings.get("imap_username") or ""),
        channel.secrets.get("imap_password", ""),
        initial_folder=str(settings.get("imap_folder") or "INBOX"),
    )


def _accept(channel: Channel, *, raw: bytes, uid: str | None) -> int:
    """1 when the message was new. One that is not a usable e-mail (no Message-ID, no From) stays
    in the mailbox, flagged seen so that it is not read at every poll, and is logged."""
    try:
        message = email_inbound_message(AnymailInboundMessage.parse_raw_mime_bytes(raw))
        return int(inbound_accept(channel=channel, message=message) is not None)
    except InboundInvalid as error:  # also an attachment over the size limit
        logger.warning("IMAP message %s of %s left unanswered: %s", uid, channel, error.message)
        return 0
