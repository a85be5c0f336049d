"""The audit trail in the admin: read-only for everyone (the database refuses changes anyway), scoped to
the workspaces a user owns, filtered by who, kind, object type, action, workspace and date, and
exported (the selected entries, or all those filtered) as CSV or JSON."""

from __future__ import annotations

from typing import Any

from auditlog.filters import ResourceTypeFilter
from auditlog.mixins import LogEntryAdminMixin
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse

from audit.models import AuditEntry
from audit.selectors import (
    audit_entries_csv,
    audit_entries_for_user,
    audit_entries_json,
    audit_workspace_ids_for_user,
)
from core.models import Workspace

# auditlog's own admin registers whichever model is the log entry (this one): ours replaces it.
if admin.site.is_registered(AuditEntry):
    admin.site.unregister(AuditEntry)


class ActorFilter(admin.SimpleListFilter):
    title = "who"
    parameter_name = "actor"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        labels = (
            model_admin.get_queryset(request)
            .order_by("actor_label")
            .values_list("actor_label", flat=True)
            .distinct()[:200]
        )
        return [(label, label) for label in labels]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.filter(actor_label=self.value()) if self.value() else queryset


class EntryWorkspaceFilter(admin.SimpleListFilter):
    title = "workspace"
    parameter_name = "workspace"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        workspaces = Workspace.objects.all()
        if not request.user.is_superuser:
            workspaces = workspaces.filter(pk__in=audit_workspace_ids_for_user(user=request.user))
        return [(str(pk), name) for pk, name in workspaces.values_list("pk", "name")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.filter(workspaces__contains=[self.value()]) if self.value() else queryset


@admin.register(AuditEntry)
class AuditEntryAdmin(LogEntryAdminMixin, admin.ModelAdmin[AuditEntry]):  # type: ignore[misc]  # django-auditlog ships no type hints
    # Its rows follow the role table through audit.selectors (an entry belongs to several workspaces,
    # so it is not a WorkspaceScopedAdmin): tests/core/test_roles_walk.py walks it as one.
    role_scoped = True
    date_hierarchy = "timestamp"
    list_display = [
        "timestamp",
        "kind",
        "action",
        "resource_url",
        "msg_short",
        "actor_label",
        "remote_addr",
    ]
    list_filter = [
        "kind",
        "action",
        ActorFilter,
        ResourceTypeFilter,
        EntryWorkspaceFilter,
        ("timestamp", admin.DateFieldListFilter),
    ]
    search_fields = ["object_repr", "object_pk", "actor_label"]
    fields = (
        "timestamp",
        "kind",
        "action",
        "resource_url",
        "actor_label",
        "actor_id",
        "actor_key_id",
        "remote_addr",
        "workspaces",
        "msg",
    )
    readonly_fields = fields
    actions = ["export_csv", "export_json"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[AuditEntry]:
        self.request = request  # LogEntryAdminMixin's links read it
        return audit_entries_for_user(user=request.user)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.action(description="Export the selected entries as CSV")
    def export_csv(self, request: HttpRequest, queryset: QuerySet[AuditEntry]) -> HttpResponse:
        response = HttpResponse(audit_entries_csv(queryset), content_type="text/csv")
        response["Content-Disposition"] = 'attachment; filename="audit.csv"'
        return response

    @admin.action(description="Export the selected entries as JSON")
    def export_json(self, request: HttpRequest, queryset: QuerySet[AuditEntry]) -> HttpResponse:
        response = HttpResponse(audit_entries_json(queryset), content_type="application/json")
        response["Content-Disposition"] = 'attachment; filename="audit.json"'
        return response
