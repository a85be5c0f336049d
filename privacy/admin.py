"""The record of visitors' erasures, read-only and scoped to the user's workspaces: when, asked by
whom, its state and what it removed (never whom: the subject is gone once it is done)."""

from __future__ import annotations

from django.contrib import admin

from conversations.admin import ReadOnlyAdmin
from core.admin_scoping import WorkspaceListFilter, WorkspaceScopedAdmin
from privacy.models import VisitorErasure


@admin.register(VisitorErasure)
class VisitorErasureAdmin(ReadOnlyAdmin, WorkspaceScopedAdmin):
    list_display = ["created_at", "workspace", "subject_kind", "status", "attempts", "completed_at"]
    list_filter = [WorkspaceListFilter, "status", "subject_kind"]
    list_select_related = ["workspace"]
    fields = [
        "workspace",
        "subject_kind",
        "status",
        "attempts",
        "counts",
        "error_code",
        "error_message",
        "notes",
        "requested_by",
        "created_at",
        "completed_at",
    ]
