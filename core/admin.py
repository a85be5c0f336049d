"""Admin for workspaces and memberships: members see their own workspaces; superusers manage all.

Apps above core add a section to each workspace's page with `workspace_admin_panel_register` (rag: the
fusion calibration), so core imports none of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse

from core.admin_scoping import WorkspaceListFilter, WorkspaceScopedAdmin
from core.models import Membership, Workspace
from core.services import staff_access_ensure

# (request, workspace) -> the HTML of one section of the workspace's change page
WorkspacePanel = Callable[[HttpRequest, Workspace], str]
_panels: dict[str, WorkspacePanel] = {}


def workspace_admin_panel_register(*, key: str, render: WorkspacePanel) -> None:
    _panels[key] = render


@admin.register(Workspace)
class WorkspaceAdmin(WorkspaceScopedAdmin[Workspace]):
    workspace_lookup = "pk"
    list_display = ["name", "slug", "created_at"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    fieldsets = [
        (None, {"fields": ["name", "slug"]}),
        (
            "Privacy",
            {
                "fields": ["redact_personal_data", "redact_before_llm", "retention_days"],
                "description": "Visitors' personal data: docs/privacy.md.",
            },
        ),
    ]

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        # get_object goes through the scoped queryset: a stranger's workspace is a 404 before any panel
        workspace = self.get_object(request, object_id)
        panels = [render(request, workspace) for render in _panels.values()] if workspace else []
        context = {**(extra_context or {}), "workspace_panels": panels}
        return super().change_view(request, object_id, form_url, extra_context=context)


@admin.register(Membership)
class MembershipAdmin(WorkspaceScopedAdmin[Membership]):
    list_display = ["user", "workspace", "role", "created_at"]
    list_filter = [WorkspaceListFilter, "role"]
    list_select_related = ["user", "workspace"]
    search_fields = ["user__username", "user__email", "workspace__name"]
    autocomplete_fields = ["user"]
    fields = ["workspace", "user", "role"]

    def save_model(self, request: HttpRequest, obj: Membership, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        staff_access_ensure(user_id=obj.user_id)
