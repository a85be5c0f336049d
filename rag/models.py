"""Knowledge state: documents, their chunks (text, location, embedding, full-text vector), workspace model choice.

Vectors of any dimension share one unconstrained `vector` column; each supported dimension gets
a partial HNSW index over `embedding::vector(N)`, so a workspace can switch models without a
schema change and a search (which always filters on one model) still walks an index.
"""

from __future__ import annotations

import uuid

from django.contrib.postgres.indexes import GinIndex, OpClass
from django.contrib.postgres.search import SearchVectorField
from django.db import models
from django.db.models import Func, IntegerField, Q
from django.db.models.functions import Cast
from django.db.models.lookups import GreaterThanOrEqual
from pgvector.django import HnswIndex, VectorField

from bots.models import Bot
from core.models import Workspace

# Dimensions with an HNSW index: MiniLM/bge-small (384), base models (768), large (1024), OpenAI small (1536).
INDEXED_DIMENSIONS = (384, 768, 1024, 1536)


def embedding_as(dims: int) -> Cast:
    """`embedding::vector(dims)`: queries must order by this expression (with `embedding_dims = dims`)
    for PostgreSQL to use that dimension's partial HNSW index."""
    return Cast("embedding", output_field=VectorField(dimensions=dims))


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

    status = models.CharField(
        max_length=12, choices=Status.choices, default=Status.PENDING, db_index=True
    )
    error_code = models.CharField(max_length=40, blank=True)
    error = models.TextField(blank=True)
    progress = models.PositiveSmallIntegerField(default=0)
    chunk_count = models.PositiveIntegerField(default=0)
    attempts = models.PositiveSmallIntegerField(
        default=0, help_text="Deliveries since the last (re)queue."
    )
    claim_id = models.CharField(
        max_length=64, blank=True, help_text="Celery task id holding the processing claim."
    )
    force = models.BooleanField(
        default=False, help_text="Re-embed even when checksum and model are unchanged."
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
        ]
        indexes = [models.Index(fields=["workspace", "status"], name="document_ws_status")]

    def __str__(self) -> str:
        return self.title


class Chunk(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="chunks")
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    ordinal = models.PositiveIntegerField()
    text = models.TextField()
    heading_path = models.JSONField(default=list, blank=True)
    page_number = models.PositiveIntegerField(null=True, blank=True)
    bbox = models.JSONField(
        default=list, blank=True, help_text="[{bbox: [x1, y1, x2, y2], page_number}], PDF points."
    )
    start_time = models.FloatField(null=True, blank=True)
    end_time = models.FloatField(null=True, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    token_count = models.PositiveIntegerField(default=0)
    embedding = VectorField()
    embedding_dims = models.PositiveSmallIntegerField()
    embedding_model = models.CharField(max_length=200)
    search_config = models.CharField(
        max_length=40, default="simple", help_text="PostgreSQL text-search config."
    )
    search_vector = SearchVectorField(null=True)

    class Meta:
        ordering = ["document", "ordinal"]
        constraints = [
            models.UniqueConstraint(fields=["document", "ordinal"], name="chunk_unique_ordinal"),
            models.CheckConstraint(
                condition=Q(
                    embedding_dims=Func(
                        "embedding", function="vector_dims", output_field=IntegerField()
                    )
                ),
                name="chunk_dims_match_vector",
            ),
            models.CheckConstraint(
                condition=models.Q(start_time__isnull=True)
                | models.Q(end_time__isnull=True)
                # django-stubs types Q | lookup as Combinable; Django takes it as a condition.
                | GreaterThanOrEqual(models.F("end_time"), models.F("start_time")),  # type: ignore[arg-type]
                name="chunk_time_order",
            ),
        ]
        indexes = [
            GinIndex(fields=["search_vector"], name="chunk_search_gin"),
            models.Index(fields=["workspace", "embedding_model"], name="chunk_ws_model"),
            *[
                HnswIndex(
                    OpClass(embedding_as(dims), name="vector_cosine_ops"),
                    name=f"chunk_embedding_hnsw_{dims}",
                    condition=models.Q(embedding_dims=dims),
                    m=16,
                    ef_construction=64,
                )
                for dims in INDEXED_DIMENSIONS
            ],
        ]

    def __str__(self) -> str:
        return f"{self.document_id}#{self.ordinal}"


class WorkspaceEmbedding(models.Model):
    """The embedding model a workspace's chunks use; changing it re-embeds its documents."""

    workspace = models.OneToOneField(
        Workspace, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    embedding_model = models.CharField(
        max_length=200,
        help_text="'local/all-MiniLM-L6-v2' or 'openai/<model name>' (the configured endpoint).",
    )
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.workspace}: {self.embedding_model}"
