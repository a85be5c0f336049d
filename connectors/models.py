"""A bot's channels (Slack, e-mail), the platform threads that are its conversations, the inbound
events received (one row per platform message: a platform's retries find it) and the outbox (one row
per thing the visitor should read, sent in order, retried until the platform takes it)."""

from __future__ import annotations

import uuid

from django.db import models

from bots.models import Bot
from conversations.models import Conversation


class Channel(models.Model):
    """One platform connection of a bot. ``id`` is in the URL the platform is given; ``secrets`` (the
    signing secret, the bot token, the SMTP password) are write-only: the admin never shows them."""

    class Kind(models.TextChoices):
        SLACK = "slack", "Slack"
        EMAIL = "email", "E-mail"
        WHATSAPP = "whatsapp", "WhatsApp"
        TELEGRAM = "telegram", "Telegram"
        TEAMS = "teams", "Microsoft Teams"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="channels")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    name = models.CharField(max_length=100)
    enabled = models.BooleanField(default=True)
    # The platform's API (blank: its public one). Tests point it at a local server speaking the API.
    api_base_url = models.URLField(blank=True)
    # Non-secret settings of the kind (e-mail: from_address, smtp_host, smtp_port, smtp_username, smtp_tls).
    settings = models.JSONField(default=dict, blank=True)
    secrets = models.JSONField(default=dict, blank=True, editable=False)
    # An attachment becomes a document of the conversation (else it is acknowledged and ignored).
    accept_attachments = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.get_kind_display()} · {self.name}"


class ChannelThread(models.Model):
    """A platform thread (a Slack thread, an e-mail thread), which is one conversation. ``address`` is
    where replies go (Slack: channel and thread_ts; e-mail: the visitor's address, the subject and the
    Message-IDs of the thread for In-Reply-To/References)."""

    channel = models.ForeignKey(Channel, on_delete=models.CASCADE, related_name="threads")
    conversation = models.OneToOneField(
        Conversation, on_delete=models.CASCADE, related_name="channel_thread"
    )
    thread_key = models.CharField(max_length=300)
    address = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["channel", "thread_key"], name="thread_unique_key")
        ]

    def __str__(self) -> str:
        return f"{self.channel} · {self.thread_key}"


class InboundEvent(models.Model):
    """One platform message, stored before the platform is answered (it then retries nothing) and
    processed by a worker. ``reply_ref``: the platform message the streamed answer is being written in."""

    class Status(models.TextChoices):
        RECEIVED = "received", "Received"
        DONE = "done", "Done"

    channel = models.ForeignKey(Channel, on_delete=models.CASCADE, related_name="inbound_events")
    thread = models.ForeignKey(ChannelThread, on_delete=models.CASCADE, related_name="inbound")
    message_id = models.CharField(max_length=300)
    client_message_id = models.CharField(max_length=100)
    text = models.TextField(blank=True)
    # [{name, content_type, url}] (Slack: fetched with the token) or stored e-mail parts' names.
    attachments = models.JSONField(default=list, blank=True)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.RECEIVED)
    reply_ref = models.CharField(max_length=200, blank=True)
    received_at = models.DateTimeField(auto_now_add=True)
    processed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["channel", "message_id"], name="inbound_unique_message")
        ]
        indexes = [models.Index(fields=["status", "received_at"], name="inbound_status_received")]

    def __str__(self) -> str:
        return f"{self.channel} · {self.message_id}"


class OutboxMessage(models.Model):
    """One thing the visitor should read, by its source (``turn:<id>``, ``message:<id>``,
    ``owner:<id>``): rendered when sent, sent in ``source_at`` order per thread, retried with backoff
    (and the platform's Retry-After) until the platform takes it."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        SENT = "sent", "Sent"
        SKIPPED = "skipped", "Nothing to send"
        FAILED = "failed", "Failed (permanent error)"

    thread = models.ForeignKey(ChannelThread, on_delete=models.CASCADE, related_name="outbox")
    source_key = models.CharField(max_length=120)
    source_at = models.DateTimeField()
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    platform_ref = models.CharField(max_length=300, blank=True)
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["source_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["thread", "source_key"], name="outbox_unique_source")
        ]
        indexes = [models.Index(fields=["status", "next_attempt_at"], name="outbox_status_due")]

    def __str__(self) -> str:
        return f"{self.source_key} ({self.status})"
