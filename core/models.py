"""Tenancy (workspaces and their members) and the worker probe used by the health check."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models


class Workspace(models.Model):
    """The tenant: it owns bots and documents; staff users belong to workspaces."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(max_length=120, unique=True)
    slug = models.SlugField(max_length=60, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Privacy (docs/privacy.md), all off by default. Redaction replaces e-mail addresses, phone, IBAN
    # and card numbers by placeholders in what is stored (turns, audits, messages, feedback, exports);
    # before the LLM too when asked. Retention deletes conversations, audits and security events
    # older than that many days (the analytics rollups keep their counts).
    redact_personal_data = models.BooleanField(
        default=False,
        help_text="Store visitors' text with e-mail addresses, phone, IBAN and card numbers replaced "
        "by [email], [phone], [iban], [card]. The visitor's live answer is unchanged.",
    )
    redact_before_llm = models.BooleanField(
        default=False,
        help_text="Also send the question to the LLM redacted (needs the option above).",
    )
    retention_days = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Delete conversations, their audits and security events older than this many "
        "days. Empty: keep them.",
    )

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(redact_before_llm=False) | models.Q(redact_personal_data=True),
                name="workspace_redact_before_llm_needs_redaction",
            ),
            models.CheckConstraint(
                condition=models.Q(retention_days__isnull=True) | models.Q(retention_days__gte=1),
                name="workspace_retention_positive",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    """A user's role in one workspace; what each role may do is core.permissions.ROLE_GRANTS."""

    class Role(models.TextChoices):
        OWNER = "owner", "Owner"
        EDITOR = "editor", "Editor"
        ANALYST = "analyst", "Analyst"
        AGENT = "agent", "Agent"

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    # The least a membership grants (the console), so a role is given on purpose, never by default.
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.AGENT)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["workspace", "user"], name="membership_unique_user"),
            models.CheckConstraint(
                condition=models.Q(role__in=["owner", "editor", "analyst", "agent"]),
                name="membership_role_known",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.workspace} ({self.role})"


class WorkerProbe(models.Model):
    """A row a Celery worker completes, proving web → broker → worker → database works."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    worker_hostname = models.CharField(max_length=255, blank=True)
    worker_pid = models.IntegerField(null=True, blank=True)

    def __str__(self) -> str:
        return f"probe {self.pk} ({'done' if self.completed_at else 'pending'})"
