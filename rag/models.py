"""Knowledge state: documents, their chunks (text, location, embedding, full-text vector), workspace model choice,
and the full-text term statistics of BM25.

Vectors of any dimension share one unconstrained `vector` column; each supported dimension gets
a partial HNSW index over `embedding::halfvec(N)`, so a workspace can switch models without a
schema change and a search (which always filters on one model) still walks an index. The graphs hold
half-precision copies (half the index, recall unchanged at the product's ef_search:
docs/decisions/tenant-isolation.md); the column keeps full precision, and a search re-scores the walk's
rows with it.
"""

from __future__ import annotations

import uuid

from django.contrib.postgres.indexes import GinIndex, OpClass
from django.contrib.postgres.search import SearchVectorField
from django.db import models
from django.db.models import Func, IntegerField, Q
from django.db.models.functions import Cast
from django.db.models.lookups import GreaterThanOrEqual
from pgvector.django import HalfVectorField, HnswIndex, VectorField

from bots.models import Bot
from core.models import Workspace
from textmodels.embeddings import MULTI_MODEL_DIMS, multilingual_model_default

# Dimensions with an HNSW index: MiniLM/bge-small (384), base models (768), large (1024), OpenAI small (1536).
INDEXED_DIMENSIONS = (384, 768, 1024, 1536)


def embedding_as(dims: int) -> Cast:
    """`embedding::vector(dims)`: queries must order by this expression (with `embedding_dims = dims`)
    for PostgreSQL to use that dimension's partial HNSW index."""
    return Cast("embedding", output_field=VectorField(dimensions=dims))


def embedding_half(dims: int) -> Cast:
    """`embedding::halfvec(dims)`: the expression that dimension's partial HNSW index holds, so a walk of
    that index orders by it (and re-scores with `embedding_as`)."""
    return Cast("embedding", output_field=HalfVectorField(dimensions=dims))


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
    # The multilingual side (textmodels.embeddings.multilingual): a second vector of the same text, tagged with
    # its model so a search never mixes vector spaces; NULL / "" until ingestion or the backfill
    # (rag.embeddings.backfill) computes it. Its own HNSW index (one dimension, one model family).
    embedding_multi = VectorField(dimensions=MULTI_MODEL_DIMS, null=True, blank=True)
    embedding_multi_model = models.CharField(max_length=200, blank=True, default="", db_default="")
    search_config = models.CharField(
        max_length=40, default="simple", help_text="PostgreSQL text-search config."
    )
    search_vector = SearchVectorField(null=True)
    # Lexeme occurrences in search_vector (heading and text): BM25's document length, kept by the INSERT.
    search_length = models.PositiveIntegerField(db_default=0)
    # Indirect injection: the detector's verdict on the chunk at ingestion (guard). A quarantined
    # chunk is left out of retrieval until an admin releases it (quarantined=False, released_at set).
    # Database defaults too: chunks are written by raw INSERTs (rag.ingestion.store).
    injection_score = models.FloatField(default=0.0, db_default=0.0)
    injection_label = models.CharField(max_length=40, blank=True, default="", db_default="")
    injection_excerpt = models.TextField(blank=True, default="", db_default="")
    quarantined = models.BooleanField(default=False, db_default=False)
    released_at = models.DateTimeField(null=True, blank=True)
    # In the shared HNSW graphs (their predicates hold it): false for the chunks of a document kept apart
    # (Document.chunks_apart), which its workspace's own graphs hold, so a large workspace's new chunks
    # never pay an insert into the graphs of the whole table (docs/decisions/tenant-isolation.md).
    shared_indexed = models.BooleanField(default=True, db_default=True)

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
            models.CheckConstraint(
                condition=Q(released_at__isnull=True) | Q(quarantined=False),
                name="chunk_released_not_quarantined",
            ),
            models.CheckConstraint(
                condition=Q(embedding_multi__isnull=True, embedding_multi_model="")
                | Q(embedding_multi__isnull=False) & ~Q(embedding_multi_model=""),
                name="chunk_multi_vector_has_model",
            ),
        ]
        indexes = [
            # The few quarantined chunks, for their documents' admin pages.
            models.Index(
                fields=["document"], condition=Q(quarantined=True), name="chunk_quarantined"
            ),
            GinIndex(fields=["search_vector"], name="chunk_search_gin"),
            models.Index(fields=["workspace", "embedding_model"], name="chunk_ws_model"),
            *[
                HnswIndex(
                    OpClass(embedding_half(dims), name="halfvec_cosine_ops"),
                    name=f"chunk_embedding_half_{dims}",
                    condition=models.Q(embedding_dims=dims, shared_indexed=True),
                    m=16,
                    ef_construction=64,
                )
                for dims in INDEXED_DIMENSIONS
            ],
            HnswIndex(
                OpClass(
                    Cast(
                        "embedding_multi", output_field=HalfVectorField(dimensions=MULTI_MODEL_DIMS)
                    ),
                    name="halfvec_cosine_ops",
                ),
                name="chunk_embedding_multi_half",
                condition=Q(embedding_multi__isnull=False, shared_indexed=True),
                m=16,
                ef_construction=64,
            ),
            # The backfill's look-up of a workspace's chunks still without the current multilingual vector.
            models.Index(
                fields=["workspace", "embedding_multi_model"], name="chunk_ws_multi_model"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.document_id}#{self.ordinal}"


class ChunkPassages(models.Model):
    """A chunk's quotable passages and their vectors, made once when the chunk is stored (rag.passages):
    the offline composer scores them with a dot product instead of splitting and embedding the chunk
    on every question. Dropped with the chunk (ON DELETE CASCADE in the database, migration
    0011_chunk_passages: a chunk swap deletes without loading rows), re-made by the backfill when
    a tag no longer names the workspace's model."""

    chunk = models.OneToOneField(
        Chunk,
        on_delete=models.DO_NOTHING,
        primary_key=True,
        related_name="+",
        db_constraint=False,  # the migration adds it with ON DELETE CASCADE
    )
    language = models.CharField(max_length=16, blank=True, default="")
    # [[text, the FAQ question it answers or "", a table row's subject or null], ...] in chunk order,
    # then the distinct questions: the rows of the vector matrices are the units, then the questions.
    units = models.JSONField(default=list)
    asked = models.JSONField(default=list)
    # Unit-length float32 rows (rag.passages.prepared.vectors_pack), tagged with their model.
    model = models.CharField(max_length=200)
    vectors = models.BinaryField()
    multi_model = models.CharField(max_length=200, blank=True, default="")
    multi_vectors = models.BinaryField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "chunk passages"

    def __str__(self) -> str:
        return f"passages of {self.chunk_id}"


class WorkspaceEmbedding(models.Model):
    """The embedding model a workspace's chunks use; changing it re-embeds its documents."""

    workspace = models.OneToOneField(
        Workspace, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    embedding_model = models.CharField(
        max_length=200,
        help_text="'local/all-MiniLM-L6-v2' or 'openai/<model name>' (the configured endpoint).",
    )
    multilingual_model = models.CharField(
        max_length=200,
        blank=True,
        default=multilingual_model_default,
        help_text="The second, multilingual vector of every chunk: 'local/use-multilingual-v3', or"
        " empty for none. Changing it re-embeds that vector in the background.",
    )
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.workspace}: {self.embedding_model}"


class TermStat(models.Model):
    """How many of a workspace's chunks (of one text-search configuration) hold a lexeme: BM25's document
    frequency. Kept by triggers on rag_chunk (migration 0003), in the transaction that writes the chunks."""

    pk = models.CompositePrimaryKey("workspace", "config", "term")
    # No index of its own: the primary key, workspace first, serves every look-up by workspace. A second
    # index on workspace_id alone cost each statistics upsert one more index write, and under stale
    # statistics (a new workspace, before ANALYZE) the planner read a lexeme's row through it and then
    # filtered the workspace's every term (migration 0018).
    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    config = models.CharField(max_length=40)
    term = models.TextField()
    chunks = models.PositiveIntegerField()

    def __str__(self) -> str:
        return f"{self.config}:{self.term} ({self.chunks})"


class CorpusStat(models.Model):
    """A workspace's chunk count and total search_length per text-search configuration (N and avgdl of BM25),
    kept by the same triggers as TermStat."""

    pk = models.CompositePrimaryKey("workspace", "config")
    workspace = models.ForeignKey(  # the primary key serves look-ups by workspace, as for TermStat
        Workspace, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    config = models.CharField(max_length=40)
    chunks = models.PositiveIntegerField()
    length = models.BigIntegerField()

    def __str__(self) -> str:
        return f"{self.config}: {self.chunks} chunks"


class WorkspaceFusion(models.Model):
    """The fusion a workspace's hybrid search uses, as its last calibration measured and chose it, and the
    state of its background refresh (chunks changed since, a run queued).

    Until `method` is set (a first calibration), retrieval uses the defaults of
    `rag.retrieval.service.FUSION`. `candidates` keeps every method measured, with both halves' figures.
    """

    class Source(models.TextChoices):
        SYNTHETIC = "synthetic", "Synthetic (spans of sampled chunks)"
        SYNTHETIC_PARAPHRASED = "synthetic+paraphrased", "Synthetic, partly paraphrased by the LLM"
        EVALUATION = "evaluation", "The bots' evaluation cases (expected sources or snippets)"

    class Method(models.TextChoices):
        RRF = "rrf", "Weighted RRF"
        CONVEX = "convex", "Convex combination of min-max normalised scores"
        VECTOR = "vector", "Vector side alone"
        MULTI = "multi", "Multilingual vector side alone"
        TEXT = "text", "Full-text side alone"

    workspace = models.OneToOneField(
        Workspace, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    method = models.CharField(max_length=12, choices=Method.choices, blank=True)
    parameters = models.JSONField(default=dict, blank=True)
    recall_at_5 = models.FloatField(
        default=0.0, help_text="Of the chosen method, on the held-back half."
    )
    mrr = models.FloatField(default=0.0, help_text="MRR@10 of the chosen method, held-back half.")
    vector_recall_at_5 = models.FloatField(default=0.0)
    text_recall_at_5 = models.FloatField(default=0.0)
    candidates = models.JSONField(
        default=list,
        blank=True,
        help_text="[{method, label, parameters, fit: {recall_at_5, mrr}, held_out: {...}}].",
    )
    pair_count = models.PositiveIntegerField(default=0)
    held_out_count = models.PositiveIntegerField(default=0)
    paraphrased_count = models.PositiveIntegerField(default=0)
    pair_source = models.CharField(max_length=40, choices=Source.choices, blank=True)
    pair_origins = models.JSONField(
        default=list,
        blank=True,
        help_text="[{label, count}]: the evaluation sets (or synthetic spans) the pairs came from.",
    )
    embedding_model = models.CharField(max_length=200, blank=True)
    multilingual_model = models.CharField(max_length=200, blank=True, default="")
    multi_recall_at_5 = models.FloatField(default=0.0)
    chunk_count = models.PositiveIntegerField(default=0, help_text="Chunks when it was measured.")
    calibrated_at = models.DateTimeField(null=True, blank=True)
    # The background refresh: chunks added or removed since the calibration, and a run queued.
    changed_chunks = models.PositiveIntegerField(default=0)
    queued_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=(Q(method="") & Q(calibrated_at__isnull=True))
                | (
                    Q(method__in=["rrf", "convex", "vector", "multi", "text"])
                    & Q(calibrated_at__isnull=False)
                ),
                name="workspace_fusion_calibrated_has_method",
            ),
            models.CheckConstraint(
                condition=Q(held_out_count__lte=models.F("pair_count")),
                name="workspace_fusion_held_out_in_pairs",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.workspace}: {self.method or 'not calibrated'}"


class WorkspaceMediaModels(models.Model):
    """The vision and transcription models a workspace's ingestion calls; blank turns one off.

    The endpoints (base URL, key) are settings, as the embedding endpoint's are; the models are
    the workspace's choice, as its embedding model is.
    """

    workspace = models.OneToOneField(
        Workspace, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    vision_model = models.CharField(
        max_length=200,
        blank=True,
        help_text="Describes figures (PARLEY_VISION_OPENAI_BASE_URL); blank: figures get their OCR text.",
    )
    transcription_model = models.CharField(
        max_length=200,
        blank=True,
        help_text="Transcribes audio and video (PARLEY_TRANSCRIPTION_OPENAI_BASE_URL), e.g. whisper-1;"
        " blank: only VTT/SRT files.",
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "workspace media models"
        verbose_name_plural = "workspace media models"

    def __str__(self) -> str:
        return f"{self.workspace}: vision {self.vision_model or '-'}, transcription {self.transcription_model or '-'}"
