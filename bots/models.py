"""Bots: a workspace's configured assistants. The business-rules fields arrive with the bots issue."""

from __future__ import annotations

import uuid

from django.db import models

from core.models import Workspace


class Bot(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="bots")
    name = models.CharField(max_length=120)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["workspace", "name"], name="bot_unique_name_per_workspace")]

    def __str__(self) -> str:
        return self.name
