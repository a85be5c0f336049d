"""The knowledge-gap loop's state: FAQ candidates drawn from resolved handoffs, reviewed into the
bot's documents. Curated answers live in conversations (the turn's path reads them); a gap cluster
points to the one attached to it (insights.models.gaps)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q

from bots.models import Bot
from handoff.models import Handoff
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
