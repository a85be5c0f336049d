"""A workspace's knowledge settings and statistics: its embedding models, BM25's term and corpus
statistics, its calibrated fusion, its vision and transcription models."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from core.models import Workspace
from textmodels.embeddings import multilingual_model_default


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
    `rag.retrieval.planning.FUSION`. `candidates` keeps every method measured, with both halves' figures.
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
