"""The connectors' tests: local servers speaking each platform's API (Slack, WhatsApp, Telegram, the Bot
Framework for Teams), a real SMTP server (aiosmtpd), one each per session, and a bot with a channel of
each kind pointed at them."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable, Iterator
from email.message import EmailMessage
from email.utils import make_msgid
from typing import Any, Protocol

import pytest
from django.http import HttpResponse
from django.test import Client

from bots.models import Bot
from connectors.models import Channel
from tests.api.conftest import live_api
from tests.support.factories import BotFactory
from tests.support.imap_server import IMAP_PASSWORD, IMAP_USER, ImapServer
from tests.support.platform_server import PlatformServer
from tests.support.slack_server import BOT_TOKEN, SIGNING_SECRET, SlackServer
from tests.support.smtp_server import SmtpServer
from tests.support.teams_server import APP_ID, APP_PASSWORD, TeamsServer
from tests.support.telegram_server import BOT_TOKEN as TELEGRAM_TOKEN
from tests.support.telegram_server import WEBHOOK_SECRET, TelegramServer
from tests.support.whatsapp_server import ACCESS_TOKEN, APP_SECRET, WhatsAppServer

MAILGUN_KEY = "test-mailgun-webhook-signing-key"
__all__ = ["live_api"]  # the real uvicorn server, for the console's browser test


class _Server(Protocol):
    def stop(self) -> None: ...

    def reset(self) -> None: ...


def _servers(name: str, start: Callable[[], _Server]) -> tuple[Any, Any]:
    """Two fixtures: ``<name>_server``, the platform's local server for the session, and ``<name>``,
    the same server reset for one test."""

    @pytest.fixture(scope="session", name=f"{name}_server")
    def session_server() -> Iterator[_Server]:
        server = start()
        try:
            yield server
        finally:
            server.stop()

    @pytest.fixture(name=name)
    def server(request: pytest.FixtureRequest) -> _Server:
        running: _Server = request.getfixturevalue(f"{name}_server")
        running.reset()
        return running

    return session_server, server


slack_session_fixture, slack_fixture = _servers("slack", lambda: SlackServer().start())
smtp_session_fixture, smtp_fixture = _servers("smtp", lambda: SmtpServer().start())
whatsapp_session_fixture, whatsapp_fixture = _servers("whatsapp", lambda: WhatsAppServer().start())
telegram_session_fixture, telegram_fixture = _servers("telegram", lambda: TelegramServer().start())
imap_session_fixture, imap_fixture = _servers("imap", lambda: ImapServer().start())
teams_session_fixture, teams_fixture = _servers("teams", lambda: TeamsServer().start())


def platform_channel_make(
    *, bot: Bot, kind: str, server: PlatformServer, secrets: dict[str, str], **fields: Any
) -> Channel:
    """A channel of ``kind`` whose API is the local ``server``."""
    return Channel.objects.create(
        bot=bot,
        kind=kind,
        name=f"Support {kind}",
        api_base_url=server.base_url,
        secrets=secrets,
        **fields,
    )


def whatsapp_channel_make(*, bot: Bot, server: WhatsAppServer, **fields: Any) -> Channel:
    keys = {"app_secret": APP_SECRET, "access_token": ACCESS_TOKEN, "verify_token": "verify-me"}
    return platform_channel_make(bot=bot, kind="whatsapp", server=server, secrets=keys, **fields)


def telegram_channel_make(*, bot: Bot, server: TelegramServer, **fields: Any) -> Channel:
    keys = {"bot_token": TELEGRAM_TOKEN, "webhook_secret": WEBHOOK_SECRET}
    return platform_channel_make(bot=bot, kind="telegram", server=server, secrets=keys, **fields)


def imap_settings(server: ImapServer) -> dict[str, object]:
    """An e-mail channel's settings that poll the test mailbox (plain IMAP: it is local)."""
    return {
        "imap_host": "127.0.0.1",
        "imap_port": server.port,
        "imap_security": "none",
        "imap_username": IMAP_USER,
    }


def teams_channel_make(*, bot: Bot, server: TeamsServer, **fields: Any) -> Channel:
    keys, settings = {"app_password": APP_PASSWORD}, {"teams_app_id": APP_ID}
    return platform_channel_make(
        bot=bot, kind="teams", server=server, secrets=keys, settings=settings, **fields
    )


@pytest.fixture
def bot(db: None) -> Bot:
    return BotFactory(name="Lumi")


def slack_channel_make(*, bot: Bot, server: SlackServer, **fields: Any) -> Channel:
    keys = {"signing_secret": SIGNING_SECRET, "bot_token": BOT_TOKEN}
    return platform_channel_make(bot=bot, kind="slack", server=server, secrets=keys, **fields)


def email_channel_make(
    *, bot: Bot, server: SmtpServer, imap: ImapServer | None = None, **fields: object
) -> Channel:
    """An e-mail channel sending through ``server``; with ``imap``, polling that mailbox too."""
    return Channel.objects.create(
        bot=bot,
        kind=Channel.Kind.EMAIL,
        name="Support mailbox",
        settings={
            "from_address": "help@lumen.example",
            "smtp_host": "127.0.0.1",
            "smtp_port": server.port,
            **(imap_settings(imap) if imap is not None else {}),
        },
        secrets={
            "webhook_signing_key": MAILGUN_KEY,
            **({"imap_password": IMAP_PASSWORD} if imap is not None else {}),
        },
        **fields,
    )


def mailgun_post(
    channel: Channel,
    mime: bytes,
    *,
    key: str = MAILGUN_KEY,
    timestamp: int | None = None,
    client: Client | None = None,
) -> HttpResponse:
    """POST a raw e-mail as Mailgun's inbound route (forward to ".../mime") does, signed with ``key``."""
    stamp = str(int(time.time()) if timestamp is None else timestamp)
    token = secrets.token_hex(25)
    signature = hmac.new(key.encode(), f"{stamp}{token}".encode(), hashlib.sha256).hexdigest()
    data = {
        "timestamp": stamp,
        "token": token,
        "signature": signature,
        "body-mime": mime.decode(),
        "recipient": "help@lumen.example",
        "sender": "rider@example.org",
    }
    response: HttpResponse = (client or Client()).post(
        f"/channels/{channel.pk}/email/inbound", data=data
    )
    return response


def mail_make(
    *,
    text: str,
    subject: str = "Charging",
    sender: str = "Rider <rider@example.org>",
    message_id: str | None = None,
    in_reply_to: str = "",
    references: str = "",
    attachment: tuple[str, bytes, str] | None = None,
) -> tuple[bytes, str]:
    """A raw e-mail (and its Message-ID) as a mail client sends it."""
    message = EmailMessage()
    message["From"] = sender
    message["To"] = "Lumen help <help@lumen.example>"
    message["Subject"] = subject
    message["Message-ID"] = message_id or make_msgid(domain="example.org")
    if in_reply_to:
        message["In-Reply-To"] = in_reply_to
    if references:
        message["References"] = references
    message.set_content(text)
    if attachment is not None:
        name, content, kind = attachment
        maintype, subtype = kind.split("/")
        message.add_attachment(content, maintype=maintype, subtype=subtype, filename=name)
    return message.as_bytes(), str(message["Message-ID"])
