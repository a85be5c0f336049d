"""Versioned per-bot overrides of the answer or condensing prompt template.

Each save is a new numbered version; at most one version per (bot, kind) is active, which
the database enforces with a partial unique index. No active version means the default file.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from bots.models.bot import Bot

TEMPLATE_MAX_CHARS = 30000


class PromptTemplateVersion(models.Model):
    class Kind(models.TextChoices):
        ANSWER = "answer", "Answer prompt (all four sections)"
        CONDENSE = "condense", "Question-condensing prompt"

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="template_versions")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    number = models.PositiveIntegerField()
    source = models.CharField(max_length=TEMPLATE_MAX_CHARS)  # VARCHAR: PostgreSQL enforces the cap
    note = models.CharField(max_length=200, blank=True)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    is_active = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["bot", "kind", "-number"]
        verbose_name = "prompt template version"
        constraints = [
            models.UniqueConstraint(
                fields=["bot", "kind", "number"], name="template_version_unique_number"
            ),
            models.UniqueConstraint(
                fields=["bot", "kind"],
                condition=Q(is_active=True),
                name="template_version_one_active",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.bot} · {self.kind} v{self.number}"
