"""The knowledge-gap loop's state: FAQ candidates drawn from resolved handoffs, reviewed into the
bot's documents; curated answers (optionally attached to a gap cluster) and the bot's threshold for
answering a close-enough question with one."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q

from bots.models import Bot
from handoff.models import Handoff
from insights.models.gaps import GapCluster
from rag.models import Document

FAQ_TEXT_MAX = 4000


class FaqCandidate(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Pending review"
        APPROVED = "approved", "Approved"
        REJECTED = "rejected", "Rejected"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="faq_candidates")
    # One candidate per resolved handoff; the candidate outlives a deleted conversation.
    handoff = models.OneToOneField(
        Handoff, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    question = models.CharField(max_length=FAQ_TEXT_MAX)
    answer = models.CharField(max_length=FAQ_TEXT_MAX)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    document = models.ForeignKey(
        Document, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    reviewed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["pending", "approved", "rejected"]),
                name="faq_candidate_status_valid",
            ),
            models.CheckConstraint(
                condition=~Q(question="") & ~Q(answer=""), name="faq_candidate_not_blank"
            ),
        ]

    def __str__(self) -> str:
        return self.question[:80]


class CuratedAnswerPolicy(models.Model):
    """Per bot: how close (cosine similarity) a question must be to a curated one to get its answer."""

    bot = models.OneToOneField(
        Bot, on_delete=models.CASCADE, primary_key=True, related_name="curated_answer_policy"
    )
    similarity_threshold = models.FloatField(default=0.85)

    class Meta:
        verbose_name_plural = "curated answer policies"
        constraints = [
            models.CheckConstraint(
                condition=Q(similarity_threshold__gte=0.5, similarity_threshold__lte=1),
                name="curated_threshold_range",
            )
        ]

    def __str__(self) -> str:
        return f"curated answers of {self.bot}"


class CuratedAnswer(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="curated_answers")
    cluster = models.ForeignKey(
        GapCluster, on_delete=models.SET_NULL, null=True, blank=True, related_name="curated_answers"
    )
    question = models.CharField(max_length=FAQ_TEXT_MAX)
    answer = models.CharField(max_length=FAQ_TEXT_MAX)
    is_active = models.BooleanField(default=True)
    # The question's normalised embedding and the model that made it (a workspace may change models).
    embedding = models.JSONField(default=list, blank=True)
    embedding_model = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["bot", "question"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(question="") & ~Q(answer=""), name="curated_answer_not_blank"
            )
        ]

    def __str__(self) -> str:
        return self.question[:80]
