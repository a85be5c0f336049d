"""A document's chunks: text, location, embedding (any dimension, one column), multilingual vector and
full-text vector, and the passages cut from them.

Vectors of any dimension share one unconstrained `vector` column; each supported dimension gets
a partial HNSW index over `embedding::halfvec(N)`, so a workspace can switch models without a
schema change and a search (which always filters on one model) still walks an index. The graphs hold
half-precision copies (half the index, recall unchanged at the product's ef_search:
docs/decisions/tenant-isolation.md); the column keeps full precision, and a search re-scores the walk's
rows with it."""

from __future__ import annotations

import uuid

from django.contrib.postgres.indexes import GinIndex, OpClass
from django.contrib.postgres.search import SearchVectorField
from django.db import models
from django.db.models import Func, IntegerField, Q
from django.db.models.functions import Cast
from django.db.models.lookups import GreaterThanOrEqual
from pgvector.django import HalfVectorField, HnswIndex, VectorField

from core.models import Workspace
from rag.models.documents import Document
from textmodels.embeddings import MULTI_MODEL_DIMS

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
                | GreaterThanOrEqual(models.F("end_time"), models.F("start_time")),  # type: ignore[arg-type]  # Q | lookup, see above
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
