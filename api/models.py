"""API credentials: server keys (per workspace), publishable widget keys (per bot) and bot signing secrets.

Server keys are stored as a visible lookup prefix plus a sha256 of the whole key; the key
itself is shown once, at creation. Widget keys are public by design and stored as is.
"""

from __future__ import annotations

import uuid

from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q

from bots.models import Bot
from core.models import Workspace


class Scope(models.TextChoices):
    CHAT = "chat", "Chat turns"
    RAG_SEARCH = "rag_search", "rag_search"
    CHUNKS_READ = "chunks:read", "Read chunks"
    DOCUMENTS_READ = "documents:read", "Read documents"
    DOCUMENTS_WRITE = "documents:write", "Upload, re-run and delete documents"
    PRIVACY = "privacy", "Export and erase visitors' data (only when named)"


# What a key with no scopes listed may do: everything but exporting and erasing visitors' data,
# which a key does only when its scope is named (an older all-purpose key must not gain it).
SCOPES_BY_DEFAULT: tuple[str, ...] = tuple(
    scope for scope in Scope.values if scope != Scope.PRIVACY
)


class ServerApiKey(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="api_keys")
    name = models.CharField(max_length=120)
    prefix = models.CharField(max_length=24, unique=True, editable=False)
    secret_hash = models.CharField(max_length=64, editable=False)
    scopes = ArrayField(
        models.CharField(max_length=32, choices=Scope.choices),
        default=list,
        blank=True,
        help_text="Comma-separated; empty allows every scope but privacy: "
        + ", ".join(Scope.values),
    )
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True, editable=False)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "server API key"
        constraints = [
            models.CheckConstraint(
                condition=Q(scopes__contained_by=Scope.values), name="server_key_known_scopes"
            ),
            models.CheckConstraint(
                condition=Q(secret_hash__regex=r"^[0-9a-f]{64}$"),  # noqa: S106 (a pattern, not a password)
                name="server_key_hash_is_sha256",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class WidgetKey(models.Model):
    """A publishable key: it can only chat with its bot and read that bot's chunks, from listed origins."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="widget_keys")
    name = models.CharField(max_length=120)
    key = models.CharField(max_length=64, unique=True, editable=False)
    allowed_origins = ArrayField(
        models.CharField(max_length=255),
        help_text="Comma-separated origins, e.g. https://www.example.com,http://localhost:3000",
    )
    revoked_at = models.DateTimeField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(allowed_origins__len__gte=1), name="widget_key_has_origins"
            ),
        ]
        indexes = [
            models.Index(
                fields=["key"], name="widget_key_active", condition=Q(revoked_at__isnull=True)
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.key})"


class BotSigningSecret(models.Model):
    """The secret a bot owner's backend uses to sign external_user_id for the widget (HMAC-SHA256)."""

    bot = models.OneToOneField(
        Bot, on_delete=models.CASCADE, primary_key=True, related_name="signing_secret"
    )
    secret = models.CharField(max_length=128, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    rotated_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(secret__regex=r"^.{32,}$"),  # noqa: S106 (a pattern, not a password)
                name="signing_secret_long",
            )
        ]

    def __str__(self) -> str:
        return f"signing secret of {self.bot}"
