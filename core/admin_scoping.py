"""Tenant scoping for admin pages: a staff user sees and picks only their workspaces' objects.

Superusers see everything. Other apps' admins inherit WorkspaceScopedAdmin and name the
path from their model to its workspace in `workspace_lookup` (e.g. "bot__workspace").
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Model, QuerySet
from django.http import HttpRequest

from core.models import Workspace
from core.selectors import workspace_ids_for_user


def workspace_scope(queryset: QuerySet[Any], *, user: Any, lookup: str) -> QuerySet[Any]:
    """The part of a queryset a user may see: all for a superuser, their workspaces' rows otherwise."""
    if user.is_superuser:
        return queryset
    return queryset.filter(**{f"{lookup}__in": workspace_ids_for_user(user=user)})


class WorkspaceListFilter(admin.SimpleListFilter):
    """Filter by workspace, offering only the workspaces the user belongs to."""

    title = "workspace"
    parameter_name = "workspace"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        workspaces = workspace_scope(Workspace.objects.all(), user=request.user, lookup="pk")
        return [(str(pk), name) for pk, name in workspaces.values_list("pk", "name")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value():
            return queryset.filter(**{_workspace_id_lookup(queryset.model): self.value()})
        return queryset


def _workspace_id_lookup(model: type[Model]) -> str:
    """The filter path from a model to its workspace id: "workspace" itself, or through its bot."""
    names = {field.name for field in model._meta.get_fields()}
    if "workspace" in names:
        return "workspace_id"
    if model is Workspace:
        return "pk"
    return "bot__workspace_id"


class WorkspaceScopedAdmin(admin.ModelAdmin):
    workspace_lookup = "workspace"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return workspace_scope(
            super().get_queryset(request), user=request.user, lookup=self.workspace_lookup
        )

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        kwargs.setdefault("queryset", scoped_choices(db_field.related_model, request))
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


def scoped_choices(model: type[Model], request: HttpRequest) -> QuerySet[Any]:
    """Choices for a foreign key: only rows of the user's workspaces when the target is tenant data."""
    queryset = model._default_manager.all()
    if model is Workspace:
        return workspace_scope(queryset, user=request.user, lookup="pk")
    names = {field.name for field in model._meta.get_fields()}
    if "workspace" in names:
        return workspace_scope(queryset, user=request.user, lookup="workspace")
    if "bot" in names:
        return workspace_scope(queryset, user=request.user, lookup="bot__workspace")
    return queryset
