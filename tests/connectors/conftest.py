"""The connectors' tests: a local Slack Web API server and a local SMTP server (aiosmtpd), one each per
session, and a bot with a channel of each kind pointed at them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bots.models import Bot
from connectors.models import Channel
from tests.support.factories import BotFactory
from tests.support.slack_server import BOT_TOKEN, SIGNING_SECRET, SlackServer
from tests.support.smtp_server import SmtpServer

MAILGUN_KEY = "test-mailgun-webhook-signing-key"


@pytest.fixture(scope="session")
def slack_server() -> Iterator[SlackServer]:
    server = SlackServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def slack(slack_server: SlackServer) -> SlackServer:
    slack_server.reset()
    return slack_server


@pytest.fixture(scope="session")
def smtp_server() -> Iterator[SmtpServer]:
    server = SmtpServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def smtp(smtp_server: SmtpServer) -> SmtpServer:
    smtp_server.reset()
    return smtp_server


@pytest.fixture
def bot(db: None) -> Bot:
    return BotFactory(name="Lumi")


def slack_channel_make(*, bot: Bot, server: SlackServer, **fields: object) -> Channel:
    return Channel.objects.create(
        bot=bot,
        kind=Channel.Kind.SLACK,
        name="Support Slack",
        api_base_url=server.base_url,
        secrets={"signing_secret": SIGNING_SECRET, "bot_token": BOT_TOKEN},
        **fields,
    )


def email_channel_make(*, bot: Bot, server: SmtpServer, **fields: object) -> Channel:
    return Channel.objects.create(
        bot=bot,
        kind=Channel.Kind.EMAIL,
        name="Support mailbox",
        settings={
            "from_address": "help@lumen.example",
            "smtp_host": "127.0.0.1",
            "smtp_port": server.port,
        },
        secrets={"webhook_signing_key": MAILGUN_KEY},
        **fields,
    )
