"""The audit entry: django-auditlog's log entry (object, action, field diff, address, time) with who did it
(a user or an API key, kept as plain values) and the workspaces it belongs to. Append-only in the database."""

from __future__ import annotations

from typing import Any

import pgtrigger
from auditlog.models import AbstractLogEntry, LogEntryManager
from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.db import models

from audit.changes import changes_cleaned
from audit.context import audit_context_fill


class AuditEntryManager(LogEntryManager):
    """Every entry, from auditlog's receivers or from audit.services, is created through `create`:
    who and from where come from the request being served (audit.context) unless given."""

    def log_create(self, instance: Any, force_log: bool = False, **kwargs: Any) -> Any:
        from audit.registry import audit_target

        target = audit_target(instance)
        if target is None:  # not audited (e.g. a visitor's session document)
            return None
        if "changes" in kwargs:
            # A form's "\r\n" for a stored "\n" is no change, and a password is never a value here.
            kwargs["changes"] = changes_cleaned(kwargs["changes"], redact=target.redact)
            if kwargs["changes"] is None and not force_log:
                return None
        kwargs.setdefault("kind", target.kind)
        kwargs.setdefault("workspaces", target.workspaces)
        return super().log_create(instance, force_log=force_log, **kwargs)

    def log_m2m_changes(
        self, changed_queryset: Any, instance: Any, operation: str, field_name: str, **kwargs: Any
    ) -> Any:
        from audit.registry import audit_target

        target = audit_target(instance)
        if target is None:
            return None
        kwargs.setdefault("kind", target.kind)
        kwargs.setdefault("workspaces", target.workspaces)
        return super().log_m2m_changes(changed_queryset, instance, operation, field_name, **kwargs)

    def create(self, **kwargs: Any) -> Any:
        kwargs = audit_context_fill(kwargs)
        if kwargs.get("content_type") is not None:
            kwargs["content_type"] = _content_type_current(kwargs["content_type"])
        return super().create(**kwargs)


def _content_type_current(content_type: ContentType) -> ContentType:
    """The content type as the database holds it now. ContentType's per-process cache outlives a
    content type re-created under a long-lived web or worker process (a flush, a restored dump): an
    entry naming the stale id fails its foreign key at commit, and takes the change it records with
    it. One indexed read per entry; entries are written on changes, not on reads."""
    current, _ = ContentType.objects.get_or_create(
        app_label=content_type.app_label, model=content_type.model
    )
    if current.pk != content_type.pk:
        ContentType.objects.clear_cache()
    return current


APPEND_ONLY = "append_only"
NO_TRUNCATE = "no_truncate"


class AuditEntry(AbstractLogEntry):
    class Kind(models.TextChoices):
        BOT = "bot", "Bot"
        TEMPLATE = "template", "Prompt template"
        TOPIC = "topic", "Topic"
        LEXICON = "lexicon", "Lexicon group"
        DOCUMENT = "document", "Document"
        SOURCE = "source", "Knowledge source"
        API_KEY = "api_key", "Server API key"
        WIDGET_KEY = "widget_key", "Widget key and origins"
        SIGNING_SECRET = "signing_secret", "Bot signing secret"
        MEMBER = "member", "Member and role"
        WORKSPACE = "workspace", "Workspace settings"
        HANDOFF_POLICY = "handoff_policy", "Handoff policy"
        QUARANTINE_RELEASE = "quarantine_release", "Release from quarantine"
        LOGIN = "login", "Login"
        LOGIN_FAILED = "login_failed", "Failed login"
        USER = "user", "User account"

    # No foreign key to the user: an entry must outlive its actor, and deleting a user may not
    # update an entry (the trigger below refuses it). `actor_label` is who it was, as written then.
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        null=True,
        blank=True,
        related_name="+",
    )
    actor_key_id = models.UUIDField(null=True, blank=True, db_index=True)
    actor_label = models.CharField(max_length=200, blank=True, db_index=True)
    kind = models.CharField(max_length=30, choices=Kind.choices, db_index=True)
    # The workspaces whose owners see the entry (one for a change; a login belongs to every
    # workspace of its user). Plain ids: entries outlive a deleted workspace until retention.
    workspaces = ArrayField(models.UUIDField(), default=list, blank=True)

    objects = AuditEntryManager()

    class Meta(AbstractLogEntry.Meta):
        verbose_name = "audit entry"
        verbose_name_plural = "audit entries"
        indexes = [GinIndex(fields=["workspaces"], name="audit_entry_workspaces")]
        triggers = [
            # Append-only: UPDATE and DELETE fail in the database, whoever asks, except the
            # retention task (audit.services.audit_entries_prune), which sets pgtrigger.ignore.
            pgtrigger.Protect(name=APPEND_ONLY, operation=pgtrigger.Update | pgtrigger.Delete),
            # Row triggers never see a TRUNCATE: a statement trigger refuses it. Only the test
            # harness's flush sets pgtrigger.ignore for it (tests/conftest.py); see docs/audit.md
            # for what the table's owner and a superuser can still do.
            pgtrigger.Trigger(
                name=NO_TRUNCATE,
                level=pgtrigger.Statement,
                when=pgtrigger.Before,
                operation=pgtrigger.Truncate,
                func="RAISE EXCEPTION 'pgtrigger: Cannot truncate % table', TG_TABLE_NAME;",
            ),
        ]
