"""E-mail: in through a provider's inbound webhook, read with `django-anymail`'s inbound support
(Mailgun's route "forward" format: the raw MIME or the parsed fields, signed with the webhook signing
key; the timestamp must be within 5 minutes), out through Django's e-mail backend (the channel's SMTP
server, else the project's). A thread is one conversation: a reply names the thread's first message in
References, or one of Parley's answers (whose Message-ID carries the thread) in In-Reply-To.
The quoted earlier mail is cut from the question; an answer carries its sources as footnotes.
"""

from __future__ import annotations

import re
import smtplib
import time
import uuid
from dataclasses import replace
from typing import Any

from anymail.exceptions import AnymailError
from anymail.inbound import AnymailInboundMessage
from anymail.webhooks.mailgun import MailgunInboundWebhookView
from django.core.mail import EmailMessage, get_connection
from django.core.mail.backends.base import BaseEmailBackend
from django.http import HttpRequest

from connectors.errors import DeliveryError, InboundInvalid, SignatureRefused
from connectors.models import Channel, ChannelThread, InboundEvent
from connectors.platforms.base import (
    Attachment,
    InboundMessage,
    Outgoing,
    Parsed,
    sources_footnotes,
)
from connectors.text import email_reply_strip

REPLAY_WINDOW_SECONDS = 300
_PARLEY_ID = re.compile(r"<parley\.(\d+)\.[0-9a-f]+@")
_ID = re.compile(r"<[^<>\s]+>")


class EmailConnector:
    def __init__(self, channel: Channel) -> None:
        self.channel = channel

    # --- in ---------------------------------------------------------------------------------
    def _webhook(self) -> MailgunInboundWebhookView:
        key = self.channel.secrets.get("webhook_signing_key", "")
        if not key:
            raise SignatureRefused("the channel has no webhook signing key")
        return MailgunInboundWebhookView(webhook_signing_key=key, webhook_secret=[])

    def verify(self, request: HttpRequest) -> None:
        webhook = self._webhook()
        try:
            webhook.run_validators(request)
        except AnymailError as error:
            raise SignatureRefused(str(error)) from error
        try:
            age = abs(time.time() - int(request.POST.get("timestamp", "")))
        except ValueError as error:
            raise SignatureRefused("no timestamp") from error
        if age > REPLAY_WINDOW_SECONDS:
            raise SignatureRefused("a replayed timestamp (older than 5 minutes)")

    def parse(self, request: HttpRequest) -> Parsed:
        try:
            events = self._webhook().parse_events(request)
        except AnymailError as error:
            raise InboundInvalid(str(error)) from error
        message = events[0].message
        if message is None:
            return Parsed()
        return Parsed(messages=[email_inbound_message(message)])

    def attachment_fetch(self, attachment: Attachment) -> bytes:
        return attachment.content or b""

    # --- out --------------------------------------------------------------------------------
    def stream_emitter(self, *, thread: ChannelThread, event: InboundEvent) -> None:
        return None  # a sent e-mail cannot be edited: the answer goes out whole

    def send(
        self, *, thread: ChannelThread, outgoing: Outgoing, parts: list[str], replace_ref: str
    ) -> list[str]:
        if parts:
            return parts
        settings = self.channel.settings
        sender = settings.get("from_address") or "parley@localhost"
        domain = sender.rsplit("@", 1)[-1] or "localhost"
        message_id = f"<parley.{thread.pk}.{uuid.uuid4().hex}@{domain}>"
        address = thread.address
        subject = address.get("subject") or ""
        if subject and not subject.lower().startswith("re:"):
            subject = f"Re: {subject}"
        headers: dict[str, Any] = {"Message-ID": message_id}
        if address.get("last_message_id"):
            headers["In-Reply-To"] = address["last_message_id"]
            headers["References"] = " ".join(address.get("references") or [])
        email = EmailMessage(
            subject=subject or self.channel.bot.name,
            body=email_body(outgoing),
            from_email=sender,
            to=[address["to"]],
            headers=headers,
            connection=self._connection(),
        )
        try:
            email.send()
        except smtplib.SMTPResponseException as error:  # 4xx: try later; 5xx: refused for good
            transient = 400 <= error.smtp_code < 500
            raise DeliveryError(f"SMTP {error.smtp_code}", transient=transient) from error
        except smtplib.SMTPRecipientsRefused as error:
            codes = [code for code, _ in error.recipients.values()]
            transient = all(400 <= code < 500 for code in codes)
            raise DeliveryError(f"SMTP refused {codes}", transient=transient) from error
        except (smtplib.SMTPException, OSError) as error:
            raise DeliveryError(str(error) or type(error).__name__, transient=True) from error
        return [message_id]

    def _connection(self) -> BaseEmailBackend:
        settings = self.channel.settings
        if not settings.get("smtp_host"):
            return get_connection(fail_silently=False)
        return get_connection(
            backend="django.core.mail.backends.smtp.EmailBackend",
            host=settings["smtp_host"],
            port=int(settings.get("smtp_port") or 25),
            username=settings.get("smtp_username") or None,
            password=self.channel.secrets.get("smtp_password") or None,
            use_tls=bool(settings.get("smtp_tls")),
            timeout=15,
            fail_silently=False,
        )


def email_inbound_message(message: AnymailInboundMessage) -> InboundMessage:
    """A received e-mail (a provider's webhook, an IMAP mailbox) as a visitor message: its thread
    found by References/In-Reply-To, the quoted earlier mail cut, a new thread's subject asked too."""
    message_id = (message.get("Message-ID") or "").strip()
    sender = message.from_email
    if not message_id or sender is None or not sender.addr_spec:
        raise InboundInvalid("an e-mail without Message-ID or From")
    address = sender.addr_spec.lower()
    references = _ID.findall(message.get("References") or "")
    in_reply_to = _ID.findall(message.get("In-Reply-To") or "")
    refs = tuple(references + in_reply_to)
    root = (references or in_reply_to or [message_id])[0]
    text = email_reply_strip(message.text or "")
    if message.get("Subject") and not refs:  # a new thread: the subject is part of the question
        text = f"{message.subject}\n\n{text}".strip()
    attachments = tuple(
        Attachment(
            name=part.get_filename() or "attachment",
            content_type=part.get_content_type(),
            content=part.get_content_bytes(),
        )
        for part in message.attachments
    )
    return InboundMessage(
        message_id=message_id,
        thread_key=root,
        text=text,
        visitor_id=address,
        address={
            "to": address,
            "subject": message.subject or "",
            "last_message_id": message_id,
            "references": [*references, message_id][-20:],
        },
        thread_refs=refs,
        thread_ids=tuple(int(m) for ref in refs for m in _PARLEY_ID.findall(ref)),
        attachments=attachments,
        same_visitor_only=True,
    )


def email_body(outgoing: Outgoing) -> str:
    """The plain-text body: the answer with its sources as footnotes, an agent's reply signed."""
    if outgoing.kind == "agent" and outgoing.author:
        outgoing = replace(outgoing, text=f"{outgoing.text}\n\n— {outgoing.author}")
    return sources_footnotes(outgoing)
