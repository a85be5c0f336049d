"""The record of a visitor's erasure: what was asked, its progress and what it removed, never the
content. The subject (an external user id, a visitor id or a conversation id) is kept only while the erasure runs;
afterwards a keyed digest of it remains, so "was this visitor erased?" can still be answered."""

from __future__ import annotations

import uuid

from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q

from core.models import Workspace


class VisitorErasure(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Pending"  # recorded, not finished: the task (re)runs it
        FAILED = "failed", "Failed, to be resumed"
        DONE = "done", "Done"

    class Subject(models.TextChoices):
        EXTERNAL_USER = "external_user", "External user id"
        CONVERSATION = "conversation", "Conversation"
        VISITOR = "visitor", "Visitor id"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    subject_kind = models.CharField(max_length=20, choices=Subject.choices)
    # Cleared when done; the digest (HMAC-SHA256 with the project's secret) stays.
    subject = models.CharField(max_length=255, blank=True)
    subject_digest = models.CharField(max_length=64)
    # The conversations found when it was asked: the erasure's scope, fixed so a resumed run erases
    # the same ones (their external user id is gone after the first pass). Cleared when done.
    conversation_ids = ArrayField(models.UUIDField(), default=list, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    # What each step removed or emptied, by name: {"turns_emptied": 3, "documents": 1, ...}.
    counts = models.JSONField(default=dict, blank=True)
    error_code = models.CharField(max_length=60, blank=True)
    error_message = models.CharField(max_length=1000, blank=True)
    # What the erasure could not reach, in words: e.g. an external Valkey that refused to rewrite
    # its append-only file (privacy.services.valkey_files). No content.
    notes = models.JSONField(default=list, blank=True)
    # Who asked: "api_key:<id>" or "command".
    requested_by = models.CharField(max_length=80, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "updated_at"], name="erasure_status_updated")]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["pending", "failed", "done"]),
                name="erasure_status_valid",
            ),
            models.CheckConstraint(
                condition=Q(subject_kind__in=["external_user", "conversation", "visitor"]),
                name="erasure_subject_kind_valid",
            ),
            # A finished erasure keeps no trace of whom it erased but the digest.
            models.CheckConstraint(
                condition=~Q(status="done")
                | Q(subject="", conversation_ids=[], completed_at__isnull=False),
                name="erasure_done_forgets_subject",
            ),
        ]

    def __str__(self) -> str:
        return f"erasure {self.pk} ({self.status})"
