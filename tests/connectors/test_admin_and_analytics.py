"""A channel configured in the admin (secrets write-only: never shown back, a blank field keeps them;
the URL to give the platform), and the channel as the analytics' dimension: the period form's choices,
the aggregates filtered by it, and the turns export's column."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from bots.models import Bot
from connectors.models import Channel, InboundEvent
from connectors.services import inbound_process
from insights.admin.analytics import PeriodForm, scope_for_period
from insights.selectors.analytics import analytics_get
from insights.services.rollups import turn_rollups_refresh
from tests.connectors.conftest import (
    email_channel_make,
    mail_make,
    mailgun_post,
    slack_channel_make,
)
from tests.connectors.test_slack_inbound import slack_event_post
from tests.insights.helpers import member_client
from tests.support.slack_server import (
    SlackServer,
    slack_event_body,
    slack_mention,
    slack_signed_headers,
)
from tests.support.smtp_server import SmtpServer

pytestmark = pytest.mark.django_db

SIGNING = "8f742231b10e8888abcd99yyyzzz85a5"
TOKEN = "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy"


def test_secrets_are_written_never_shown_and_kept_when_left_blank(bot: Bot) -> None:
    client = member_client(bot)
    add = reverse("admin:connectors_channel_add")
    response = client.post(
        add,
        {
            "bot": bot.pk,
            "kind": "slack",
            "name": "Support Slack",
            "enabled": "on",
            "signing_secret": SIGNING,
            "bot_token": TOKEN,
            "api_base_url": "http://169.254.169.254/",  # only a superuser may set it
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    channel = Channel.objects.get()
    assert channel.secrets == {"signing_secret": SIGNING, "bot_token": TOKEN}
    assert channel.api_base_url == ""

    page = client.get(
        reverse("admin:connectors_channel_change", args=[channel.pk])
    ).content.decode()
    assert SIGNING not in page and TOKEN not in page
    assert "signing_secret: …85a5" in page and "bot_token: …bqgy" in page
    assert f"/channels/{channel.pk}/slack/events" in page  # the URL to give Slack

    # Saving with the secret fields blank keeps them; a new value replaces only its own.
    response = client.post(
        reverse("admin:connectors_channel_change", args=[channel.pk]),
        {
            "bot": bot.pk,
            "kind": "slack",
            "name": "Renamed",
            "enabled": "on",
            "bot_token": "xoxb-new",
        },
    )
    assert response.status_code == 302
    channel.refresh_from_db()
    assert channel.name == "Renamed"
    assert channel.secrets == {"signing_secret": SIGNING, "bot_token": "xoxb-new"}


def test_the_channel_is_a_dimension_of_the_analytics_and_of_the_export(
    bot: Bot, slack: SlackServer, smtp: SmtpServer
) -> None:
    slack_channel = slack_channel_make(bot=bot, server=slack)
    for n in range(2):
        body = slack_event_body(slack_mention(channel="C1", ts=f"10.00000{n}", text=f"Hello {n}"))
        assert (
            slack_event_post(Client(), slack_channel, body, slack_signed_headers(body)).status_code
            == 200
        )
    mime, _ = mail_make(text="Hello by mail")
    assert mailgun_post(email_channel_make(bot=bot, server=smtp), mime).status_code == 200
    for event in InboundEvent.objects.all():
        inbound_process(event_id=event.pk)
    turn_rollups_refresh(until=timezone.now() + timedelta(seconds=1))

    assert {"slack", "email"} <= {value for value, _ in PeriodForm.base_fields["channel"].choices}
    today = timezone.localdate()
    counts = {
        channel: analytics_get(
            scope=scope_for_period(bot_id=bot.pk, start=today, end=today, channel=channel)
        ).summary["turns"]
        for channel in ("", "slack", "email", "widget")
    }
    assert counts == {"": 3, "slack": 2, "email": 1, "widget": 0}

    client = member_client(bot)
    url = reverse("admin:insights_analyzedturn_changelist")
    response = client.get(url, {"bot": bot.pk, "channel": "slack", "export": "csv"})
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [row["channel"] for row in rows] == ["slack", "slack"]
