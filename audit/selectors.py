"""Reads of the audit trail: the entries a user may see (the one access choke point) and their export
as rows, CSV and JSON."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import QuerySet

from audit.models import AuditEntry
from core.admin_scoping import workspace_ids_granting

EXPORT_FIELDS = (
    "id",
    "timestamp",
    "kind",
    "action",
    "object_type",
    "object_pk",
    "object_repr",
    "actor",
    "actor_user_id",
    "actor_key_id",
    "remote_addr",
    "workspaces",
    "changes",
)
# A spreadsheet runs a cell starting with these as a formula; object names are staff's or visitors'
# text, so such a cell is written with a leading apostrophe.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def audit_workspace_ids_for_user(*, user: Any) -> list[Any]:
    """The workspaces whose trail a user may read: those where their role grants it (the owner's, in
    core.permissions' one table)."""
    return workspace_ids_granting(user=user, grant=("audit", "auditentry", "view"))


def audit_entries_for_user(*, user: Any) -> QuerySet[AuditEntry]:
    """Every entry for a superuser; for anyone else, the entries of the workspaces they own."""
    entries: QuerySet[AuditEntry] = AuditEntry.objects.select_related("content_type")
    if user.is_superuser:
        return entries
    return entries.filter(workspaces__overlap=audit_workspace_ids_for_user(user=user))


def audit_entry_row(entry: AuditEntry) -> dict[str, Any]:
    """One entry as plain data, the same for both export formats."""
    return {
        "id": entry.pk,
        "timestamp": entry.timestamp.isoformat(),
        "kind": entry.kind,
        "action": dict(AuditEntry.Action.choices).get(entry.action, str(entry.action)),
        "object_type": entry.content_type.model_class()._meta.label
        if entry.content_type.model_class()
        else f"{entry.content_type.app_label}.{entry.content_type.model}",
        "object_pk": entry.object_pk,
        "object_repr": entry.object_repr,
        "actor": entry.actor_label,
        "actor_user_id": entry.actor_id,
        "actor_key_id": str(entry.actor_key_id) if entry.actor_key_id else None,
        "remote_addr": entry.remote_addr,
        "workspaces": [str(workspace) for workspace in entry.workspaces],
        "changes": entry.changes or {},
    }


def audit_entries_json(entries: Iterable[AuditEntry]) -> str:
    return json.dumps(
        [audit_entry_row(entry) for entry in entries], cls=DjangoJSONEncoder, ensure_ascii=False
    )


def _cell(value: Any) -> str:
    if isinstance(value, dict | list):
        text = json.dumps(value, cls=DjangoJSONEncoder, ensure_ascii=False)
    else:
        text = "" if value is None else str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


def audit_entries_csv(entries: Iterable[AuditEntry]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(EXPORT_FIELDS)
    for entry in entries:
        row = audit_entry_row(entry)
        writer.writerow([_cell(row[name]) for name in EXPORT_FIELDS])
    return out.getvalue()
