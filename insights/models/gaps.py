"""Knowledge gaps: not-found and low-confidence questions grouped by embedding similarity.

A clustering is computed in the background (embedding hundreds of questions takes seconds), kept
per bot and period, and read by the analytics page. `AnalyzedTurn` is a proxy of the turn so the
analytics page's links open a turn changelist with the filters that only this app can express
(bot, channel, feedback, handoff reason, cluster) without the conversations app knowing about them.
"""

from __future__ import annotations

import uuid

from django.db import models
from django.db.models import Q

from bots.models import Bot
from conversations.models import CuratedAnswer, Turn
from insights.models.evaluation import JobStatus


class AnalyzedTurn(Turn):
    class Meta:
        proxy = True
        verbose_name = "turn (analytics)"
        verbose_name_plural = "turns (analytics)"


class GapClustering(models.Model):
    """One clustering of a bot's failed questions over a period and channel."""

    Status = JobStatus

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="gap_clusterings")
    period_start = models.DateTimeField()
    period_end = models.DateTimeField()
    channel = models.CharField(max_length=20, blank=True)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.QUEUED)
    questions = models.PositiveIntegerField(default=0)
    error_message = models.CharField(max_length=1000, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["bot", "-created_at"], name="gap_clustering_bot_created")]
        constraints = [
            models.CheckConstraint(
                condition=Q(period_start__lt=models.F("period_end")),
                name="gap_clustering_period_ordered",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["queued", "running", "completed", "failed"]),
                name="gap_clustering_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.bot} · {self.period_start:%Y-%m-%d}…{self.period_end:%Y-%m-%d}"


class GapCluster(models.Model):
    """A group of similar failed questions: its size, a few examples and every turn in it."""

    clustering = models.ForeignKey(GapClustering, on_delete=models.CASCADE, related_name="clusters")
    label = models.CharField(max_length=500)
    size = models.PositiveIntegerField()
    # The questions closest to the cluster's centre, most central first.
    examples = models.JSONField(default=list)
    # The mean of the members' normalised embeddings, for matching later questions to the cluster.
    centroid = models.JSONField(default=list)
    turns = models.ManyToManyField(Turn, related_name="+")
    # The curated answer an admin attached to the cluster (one may answer several clusters).
    curated_answer = models.ForeignKey(
        CuratedAnswer, on_delete=models.SET_NULL, null=True, blank=True, related_name="clusters"
    )

    class CoveredBy(models.TextChoices):
        TURN = "turn", "a later turn"
        EVALUATION_RUN = "evaluation_run", "a later evaluation run"
        CURATED_ANSWER = "curated_answer", "a curated answer"

    # When (and by what) the gap got an answer: a later turn or evaluation run whose question is close
    # to the centroid found one, or a curated answer was attached; null while uncovered.
    covered_at = models.DateTimeField(null=True, blank=True)
    covered_by = models.CharField(max_length=20, choices=CoveredBy.choices, blank=True)

    class Meta:
        ordering = ["-size", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(size__gte=1), name="gap_cluster_not_empty")
        ]

    def __str__(self) -> str:
        return f"{self.label[:60]} ({self.size})"
