"""Audit entries and staff users for the audit tests."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.test import Client
from django.utils import timezone

from audit.models import AuditEntry
from bots.models import Bot
from core.models import Membership, Workspace


def entry_make(
    *, workspace: Workspace | None, repr_: str = "a bot", at: datetime | None = None
) -> AuditEntry:
    entry: AuditEntry = AuditEntry.objects.create(
        content_type=ContentType.objects.get_for_model(Bot),
        object_pk="1",
        object_repr=repr_,
        action=AuditEntry.Action.UPDATE,
        kind=AuditEntry.Kind.BOT,
        changes={"name": ["before", "after"]},
        workspaces=[workspace.pk] if workspace else [],
        timestamp=at or timezone.now(),
    )
    return entry


def staff_client(workspace: Workspace, *, role: str, name: str) -> Client:
    user = get_user_model().objects.create_user(name, password="pw-123-long", is_staff=True)
    Membership.objects.create(workspace=workspace, user=user, role=role)
    client = Client()
    client.force_login(user)
    return client


def not_owner_role() -> Any:
    return next(role for role in Membership.Role.values if role != Membership.Role.OWNER)
