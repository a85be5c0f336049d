"""A document of a workspace's knowledge: its file or source, status, language and scope."""

from __future__ import annotations

import uuid

from django.db import models

from bots.models import Bot
from core.models import Workspace


def document_upload_to(document: Document, filename: str) -> str:
    return f"documents/{document.workspace_id}/{document.id}/{filename}"


class Document(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        PROCESSING = "processing", "Processing"
        READY = "ready", "Ready"
        FAILED = "failed", "Failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="documents")
    bots = models.ManyToManyField(Bot, blank=True, related_name="documents")
    # A string reference: conversations sits above rag, so rag never imports it, yet the
    # database still cascades a session's documents away with its conversation.
    conversation = models.ForeignKey(
        "conversations.Conversation",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="documents",
    )
    external_user_id = models.CharField(max_length=255, blank=True, db_index=True)

    title = models.CharField(max_length=300)
    source_url = models.URLField(max_length=2000, blank=True)
    file = models.FileField(upload_to=document_upload_to, max_length=500)
    filename = models.CharField(max_length=255)
    mime_type = models.CharField(max_length=120, blank=True)
    size_bytes = models.BigIntegerField(default=0)
    checksum = models.CharField(
        max_length=64, blank=True, help_text="SHA-256 of the file last ingested."
    )
    language = models.CharField(
        max_length=16, blank=True, help_text="ISO 639-1 code detected at ingestion."
    )
    embedding_model = models.CharField(
        max_length=200, blank=True, help_text="Model of the current chunks."
    )
    metadata = models.JSONField(
        default=dict,
        blank=True,
        help_text="What the last ingestion found: OCR'd pages, figures and each one's outcome.",
    )

    status = models.CharField(
        max_length=12, choices=Status.choices, default=Status.PENDING, db_index=True
    )
    error_code = models.CharField(max_length=40, blank=True)
    error = models.TextField(blank=True)
    progress = models.PositiveSmallIntegerField(default=0)
    chunk_count = models.PositiveIntegerField(default=0)
    # Its chunks are kept out of the shared HNSW graphs (their `shared_indexed` is false): set when the
    # document is ingested into a workspace that has graphs of its own (rag.workspace_indexes), whose
    # walks find them; cleared with its chunks' flag before those graphs are dropped.
    chunks_apart = models.BooleanField(default=False, db_default=False)
    attempts = models.PositiveSmallIntegerField(
        default=0, help_text="Deliveries since the last (re)queue."
    )
    claim_id = models.CharField(
        max_length=64, blank=True, help_text="Celery task id holding the processing claim."
    )
    force = models.BooleanField(
        default=False, help_text="Re-embed even when checksum and model are unchanged."
    )
    upload_key = models.CharField(
        max_length=255,
        blank=True,
        default="",
        db_default="",
        help_text="The upload's Idempotency-Key and the file's place in it: a retried upload "
        "returns this document instead of creating another.",
    )

    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    queued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(progress__lte=100), name="document_progress_percent"
            ),
            models.CheckConstraint(
                condition=~models.Q(status="failed") | ~models.Q(error=""),
                name="document_failed_has_reason",
            ),
            models.CheckConstraint(
                condition=~models.Q(status="processing") | ~models.Q(claim_id=""),
                name="document_processing_claimed",
            ),
            models.UniqueConstraint(
                fields=["workspace", "external_user_id", "upload_key"],
                condition=~models.Q(upload_key=""),
                name="document_unique_upload_key",
            ),
        ]
        indexes = [models.Index(fields=["workspace", "status"], name="document_ws_status")]

    def __str__(self) -> str:
        return self.title
