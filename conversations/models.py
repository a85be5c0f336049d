"""Conversations between a visitor and a bot (and, after a handoff, a human agent)."""

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

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="conversations")
    channel = models.CharField(max_length=20, default="api")
    visitor_id = models.CharField(max_length=64, blank=True)
    external_user_id = models.CharField(max_length=255, blank=True, db_index=True)
    owner = models.CharField(max_length=20, choices=Owner.choices, default=Owner.BOT)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.bot} · {self.channel} · {self.created_at:%Y-%m-%d %H:%M}"
