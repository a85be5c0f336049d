"""A conversation between a visitor and a bot (and, after a handoff, a human agent)."""

from __future__ import annotations

import uuid

from django.db import models

from bots.models import Bot


class Conversation(models.Model):
    class Owner(models.TextChoices):
        BOT = "bot", "Bot"
        WAITING_AGENT = "waiting_agent", "Waiting for an agent"
        AGENT = "agent", "Agent"
        RESOLVED = "resolved", "Resolved"

    class Channel(models.TextChoices):
        """Where the visitor writes from: the analytics' channel dimension and the console's label.
        Slack, e-mail, WhatsApp and Telegram conversations come through the `connectors` app (above handoff)."""

        WIDGET = "widget", "Widget"
        API = "api", "API"
        SLACK = "slack", "Slack"
        EMAIL = "email", "E-mail"
        WHATSAPP = "whatsapp", "WhatsApp"
        TEAMS = "teams", "Microsoft Teams"
        TELEGRAM = "telegram", "Telegram"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="conversations")
    channel = models.CharField(max_length=20, choices=Channel.choices, default=Channel.API)
    visitor_id = models.CharField(max_length=64, blank=True)
    # The widget's own id for the browser (random, kept in its localStorage): whose conversations
    # these are for an export or an erasure by visitor id. Never a credential: access goes by the
    # session token, whose visitor_id above the server made.
    widget_visitor_id = models.CharField(max_length=64, blank=True, db_index=True)
    external_user_id = models.CharField(max_length=255, blank=True, db_index=True)
    owner = models.CharField(max_length=20, choices=Owner.choices, default=Owner.BOT)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.bot} · {self.channel} · {self.created_at:%Y-%m-%d %H:%M}"
