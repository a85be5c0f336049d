"""Admin for workspaces and memberships: members see their own workspaces; superusers manage all."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from core.admin_scoping import WorkspaceListFilter, WorkspaceScopedAdmin
from core.models import Membership, Workspace
from core.services import staff_access_ensure


@admin.register(Workspace)
class WorkspaceAdmin(WorkspaceScopedAdmin):
    workspace_lookup = "pk"
    list_display = ["name", "slug", "created_at"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    fields = ["name", "slug"]


@admin.register(Membership)
class MembershipAdmin(WorkspaceScopedAdmin):
    list_display = ["user", "workspace", "role", "created_at"]
    list_filter = [WorkspaceListFilter, "role"]
    list_select_related = ["user", "workspace"]
    search_fields = ["user__username", "user__email", "workspace__name"]
    autocomplete_fields = ["user"]
    fields = ["workspace", "user", "role"]

    def save_model(self, request: HttpRequest, obj: Membership, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        staff_access_ensure(user_id=obj.user_id)
