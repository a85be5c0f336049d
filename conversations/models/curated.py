"""Curated answers: an admin's answer to a question, and how close a question must be to get it."""

from __future__ import annotations

import uuid

from django.db import models

from bots.models import Bot


class CuratedAnswer(models.Model):
    """An admin's answer to a question: a visitor question close enough to it (the bot's
    `CuratedAnswerPolicy`) is answered with it, before retrieval (conversations.pipeline.curated).

    Kept here, below the admin pages that write it (insights), because the turn's path reads it.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="curated_answers")
    question = models.CharField(max_length=4000)
    answer = models.CharField(max_length=4000)
    is_active = models.BooleanField(default=True)
    # The question's normalised embedding and the model that made it: a turn compares it with the
    # question's vector of the same model only (a workspace may change models; saving re-embeds).
    embedding = models.JSONField(default=list, blank=True)
    embedding_model = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["bot", "question"]
        indexes = [models.Index(fields=["bot", "is_active"], name="curated_answer_bot_active")]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(question="") & ~models.Q(answer=""),
                name="curated_answer_not_blank",
            )
        ]

    def __str__(self) -> str:
        return self.question[:80]


class CuratedAnswerPolicy(models.Model):
    """Per bot: how close (cosine similarity) a question must be to a curated one to get its answer."""

    DEFAULT_SIMILARITY = 0.85

    bot = models.OneToOneField(
        Bot, on_delete=models.CASCADE, primary_key=True, related_name="curated_answer_policy"
    )
    similarity_threshold = models.FloatField(default=DEFAULT_SIMILARITY)

    class Meta:
        verbose_name_plural = "curated answer policies"
        constraints = [
            models.CheckConstraint(
                condition=models.Q(similarity_threshold__gte=0.5, similarity_threshold__lte=1),
                name="curated_threshold_range",
            )
        ]

    def __str__(self) -> str:
        return f"curated answers of {self.bot}"
