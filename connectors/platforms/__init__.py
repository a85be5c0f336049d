"""One module per platform, each a `Connector` (platforms.base); `connector_for` picks it by kind."""

from __future__ import annotations

from connectors.models import Channel
from connectors.platforms.base import Connector
from connectors.platforms.email import EmailConnector
from connectors.platforms.slack import SlackConnector
from connectors.platforms.teams import TeamsConnector
from connectors.platforms.telegram import TelegramConnector
from connectors.platforms.whatsapp import WhatsAppConnector

_CONNECTORS: dict[str, type[Connector]] = {
    Channel.Kind.SLACK: SlackConnector,
    Channel.Kind.EMAIL: EmailConnector,
    Channel.Kind.WHATSAPP: WhatsAppConnector,
    Channel.Kind.TELEGRAM: TelegramConnector,
    Channel.Kind.TEAMS: TeamsConnector,
}


def connector_for(channel: Channel) -> Connector:
    return _CONNECTORS[channel.kind](channel)
