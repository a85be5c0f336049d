"""Writes of the audit trail: entries for changes that bypass model signals, logins and failed logins,
and the retention prune (the one path allowed past the append-only trigger)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

import pgtrigger
from auditlog.diff import model_instance_diff
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.http import HttpRequest
from django.utils import timezone

from audit.context import client_address
from audit.models import APPEND_ONLY, AuditEntry
from audit.registry import Target, audit_target, user_workspaces

Action = AuditEntry.Action


def audit_created_record(*, instances: Iterable[models.Model]) -> int:
    """One creation entry per audited object inserted without model signals (bulk_create)."""
    written = 0
    for instance in instances:
        changes = model_instance_diff(None, instance, use_json_for_changes=True)
        entry = AuditEntry.objects.log_create(instance, action=Action.CREATE, changes=changes)
        written += entry is not None
    return written


def audit_change_record(
    *, instance: models.Model, changes: dict[str, list[Any]], kind: str | None = None
) -> AuditEntry:
    """An update entry for a change made by a conditional UPDATE (no model signal): revocations,
    rotations, releases from quarantine. `changes` is {field: [old, new]}, as auditlog writes it;
    `kind` names the entry of a model the registry does not audit (its `workspace_id` scopes it)."""
    target = audit_target(instance)
    if target is None:
        if kind is None:
            raise ValueError(f"{instance._meta.label} is not audited: give the entry's kind.")
        workspace_id = getattr(instance, "workspace_id", None)
        target = Target(kind=kind, workspaces=[workspace_id] if workspace_id else [])
    entry: AuditEntry = AuditEntry.objects.create(
        content_type=ContentType.objects.get_for_model(type(instance)),
        object_pk=str(instance.pk),
        object_repr=str(instance)[:500],
        action=Action.UPDATE,
        changes=changes,
        kind=kind or target.kind,
        workspaces=target.workspaces,
    )
    return entry


def login_record(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    """user_logged_in receiver: who signed in, from where, in every workspace of theirs."""
    AuditEntry.objects.create(
        content_type=ContentType.objects.get_for_model(type(user)),
        object_pk=str(user.pk),
        object_repr=user.get_username(),
        action=Action.ACCESS,
        kind=AuditEntry.Kind.LOGIN,
        changes={},
        actor=user,
        actor_label=user.get_username(),
        remote_addr=client_address(request) if request is not None else None,
        workspaces=user_workspaces(user.pk),
    )


def login_failed_record(
    sender: Any, credentials: dict[str, Any], request: HttpRequest | None = None, **kwargs: Any
) -> None:
    """user_login_failed receiver: the name tried (Django has masked the password), from where; in
    the workspaces of the user of that name, if there is one."""
    user_model = get_user_model()
    tried = str(credentials.get(user_model.USERNAME_FIELD) or credentials.get("username") or "")
    user = user_model._default_manager.filter(**{user_model.USERNAME_FIELD: tried}).first()
    AuditEntry.objects.create(
        content_type=ContentType.objects.get_for_model(user_model),
        object_pk=str(user.pk) if user else "",
        object_repr=tried[:150],
        action=Action.ACCESS,
        kind=AuditEntry.Kind.LOGIN_FAILED,
        changes={},
        actor=None,
        actor_label=f"failed: {tried[:150]}",
        remote_addr=client_address(request) if request is not None else None,
        workspaces=user_workspaces(user.pk) if user else [],
    )


def audit_cutoff(*, now: datetime | None = None) -> datetime:
    """Entries older than this go: PARLEY_AUDIT_RETENTION_DAYS before now."""
    return (now or timezone.now()) - timedelta(days=settings.PARLEY_AUDIT_RETENTION_DAYS)


def audit_entries_prune(*, now: datetime | None = None) -> int:
    """Delete the entries past retention; the count deleted. The one delete the trigger lets by."""
    with pgtrigger.ignore(f"{AuditEntry._meta.label}:{APPEND_ONLY}"):
        deleted: int = AuditEntry.objects.filter(timestamp__lt=audit_cutoff(now=now)).delete()[0]
    return deleted
