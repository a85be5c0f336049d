"""Daily rollups of a bot's turns, which the analytics page reads instead of scanning turns.

One row counts the turns of one (bot, channel, day) along one dimension: their status, confidence
bucket, topic, suggested topic (of turns without a topic), feedback rating or down-vote reason,
deflection, or all of them (dimension "turns"). insights.services.rollups recomputes the days that
changed since its watermark, from a periodic task.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from bots.models import Bot


class TurnRollup(models.Model):
    class Dimension(models.TextChoices):
        TURNS = "turns", "Turns"
        STATUS = "status", "Status"
        CONFIDENCE = "confidence", "Confidence bucket"
        TOPIC = "topic", "Topic"
        SUGGESTED = "suggested", "Suggested topic"
        DEFLECTED = "deflected", "Deflected"
        FEEDBACK = "feedback", "Feedback rating"
        FEEDBACK_REASON = "feedback_reason", "Down-vote reason"

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="+")
    channel = models.CharField(max_length=20)
    day = models.DateField()
    dimension = models.CharField(max_length=20, choices=Dimension.choices)
    key = models.CharField(max_length=200, blank=True)
    n = models.PositiveIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["bot", "day", "channel", "dimension", "key"], name="turn_rollup_unique"
            ),
            models.CheckConstraint(condition=Q(n__gte=1), name="turn_rollup_counts_something"),
        ]

    def __str__(self) -> str:
        return f"{self.day} {self.channel} {self.dimension}={self.key}: {self.n}"


class RollupWatermark(models.Model):
    """One row: turns completed (and feedback given) before `until` are in the rollups."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1)
    until = models.DateTimeField()

    class Meta:
        constraints = [models.CheckConstraint(condition=Q(id=1), name="rollup_watermark_single")]

    def __str__(self) -> str:
        return f"rollups until {self.until:%Y-%m-%d %H:%M:%S}"
