"""Tenant and role scoping for admin pages: a staff user sees and acts on a workspace's rows only as far
as their role there allows (core.permissions.ROLE_GRANTS).

Superusers see everything; a staff user with no membership sees nothing. Other apps' admins inherit
WorkspaceScopedAdmin and name the path from their model to its workspace in `workspace_lookup` (e.g.
"bot__workspace"). Each verb is checked on the object's own workspace (view, change, delete), on the
workspaces offered in forms (add, change), on the rows an admin action receives, and on custom views
(`role_view`), so the admins themselves hold no role checks.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.db.models import Model, QuerySet
from django.http import HttpRequest

from core.auth import workspace_roles
from core.models import Workspace
from core.permissions import Key, role_allows

# (app label, model name, verb): what a custom view or an admin action needs.
Grant = tuple[str, str, str]


def workspace_ids_granting(*, user: Any, grant: Grant | None) -> list[Any]:
    """The workspaces where the user's role grants `grant` (any membership when None)."""
    roles = workspace_roles(user=user)
    if grant is None:
        return list(roles)
    key: Key = (grant[0], grant[1])
    return [ws for ws, role in roles.items() if role_allows(role=role, key=key, verb=grant[2])]


_ModelT = TypeVar("_ModelT", bound=Model)


def workspace_scope(
    queryset: QuerySet[_ModelT], *, user: Any, lookup: str, grant: Grant | None = None
) -> QuerySet[_ModelT]:
    """The part of a queryset a user may see: all for a superuser, else the rows of the workspaces where
    their role grants `grant` (any of their workspaces when None)."""
    if user.is_superuser:
        return queryset
    return queryset.filter(**{f"{lookup}__in": workspace_ids_granting(user=user, grant=grant)})


def user_holds(*, user: Any, grant: Grant) -> bool:
    """Whether the user holds `grant` in at least one workspace (superusers: always)."""
    return bool(user.is_superuser or workspace_ids_granting(user=user, grant=grant))


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


def object_workspace_id(obj: Any, lookup: str) -> Any:
    """The workspace id of a row, following `lookup` ("pk", "workspace", "conversation__bot__workspace")."""
    if lookup == "pk":
        return obj.pk
    *path, last = lookup.split("__")
    for name in path:
        obj = getattr(obj, name)
    return getattr(obj, f"{last}_id")


def role_action(*, grant: Grant) -> Callable[[Any], Any]:
    """Declare what an admin action needs when it is not a verb on the admin's own model."""

    def mark(func: Any) -> Any:
        func.role_grant = grant
        return func

    return mark


class WorkspaceScopedAdmin(admin.ModelAdmin[_ModelT]):
    workspace_lookup = "workspace"

    def role_grant(self, verb: str) -> Grant:
        return (self.opts.app_label, self.opts.model_name or "", verb)

    def role_workspace_ids(self, request: HttpRequest, grant: Grant) -> list[Any]:
        return workspace_ids_granting(user=request.user, grant=grant)

    def role_allows_object(self, request: HttpRequest, obj: Any, verb: str) -> bool:
        """The model-level permission's row-level half: the role in the object's workspace grants it."""
        if obj is None or request.user.is_superuser:
            return True
        if obj.pk is None and self.workspace_lookup == "pk":
            return False
        workspace_id = object_workspace_id(obj, self.workspace_lookup)
        return workspace_id in self.role_workspace_ids(request, self.role_grant(verb))

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return workspace_scope(
            super().get_queryset(request),
            user=request.user,
            lookup=self.workspace_lookup,
            grant=self.role_grant("view"),
        )

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return super().has_view_permission(request, obj) and (
            self.role_allows_object(request, obj, "view")
            or self.role_allows_object(request, obj, "change")
        )

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return super().has_change_permission(request, obj) and self.role_allows_object(
            request, obj, "change"
        )

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return super().has_delete_permission(request, obj) and self.role_allows_object(
            request, obj, "delete"
        )

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        # The workspaces offered are those where the role may add or change this model's rows.
        ids = {
            *self.role_workspace_ids(request, self.role_grant("add")),
            *self.role_workspace_ids(request, self.role_grant("change")),
        }
        kwargs.setdefault("queryset", scoped_choices(db_field.related_model, request, ids))
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def action_grant(self, func: Any) -> Grant:
        """What an action needs: its `role_action` grant, else its Django permissions' verb on this model
        (the first of them: Django checks them all), else change: an undeclared action may write."""
        declared: Grant | None = getattr(func, "role_grant", None)
        if declared is not None:
            return declared
        verbs: Any = getattr(func, "allowed_permissions", None) or ("change",)
        return self.role_grant(str(verbs[0]))

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        """Only the actions the user's roles allow somewhere, each given only the selected rows of the
        workspaces where the role allows it."""
        actions = {}
        for name, entry in super().get_actions(request).items():
            if entry is None:
                continue
            func, action_name, description = entry
            grant = self.action_grant(func)
            if user_holds(user=request.user, grant=grant):
                actions[name] = (self._scoped_action(func, grant), action_name, description)
        return actions

    def _scoped_action(self, func: Any, grant: Grant) -> Any:
        @wraps(func)
        def scoped(model_admin: Any, request: HttpRequest, queryset: QuerySet[Any]) -> Any:
            narrowed = workspace_scope(
                queryset, user=request.user, lookup=self.workspace_lookup, grant=grant
            )
            return func(model_admin, request, narrowed)

        return scoped

    def role_view(self, view: Callable[..., Any], *, grant: Grant) -> Callable[..., Any]:
        """A custom admin view refused (403) to a user whose roles grant `grant` in no workspace; the view
        still checks the object's own workspace. `grant` stays on the view for tests/core/test_roles_walk.py."""

        @wraps(view)
        def guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
            if not user_holds(user=request.user, grant=grant):
                # The grant, for the one-line log of the refusal (core.request_log).
                raise PermissionDenied(f"{grant[0]}.{grant[2]}_{grant[1]}")
            return view(request, *args, **kwargs)

        guarded.role_grant = grant  # type: ignore[attr-defined]  # read by the roles walk
        return self.admin_site.admin_view(guarded)


def scoped_choices(
    model: type[Model], request: HttpRequest, workspace_ids: set[Any] | None = None
) -> QuerySet[Any]:
    """Choices for a foreign key: only rows of the given workspaces (of all the user's when None) when
    the target is tenant data."""
    queryset = model._default_manager.all()
    names = {field.name for field in model._meta.get_fields()}
    if model is Workspace:
        lookup = "pk"
    elif "workspace" in names:
        lookup = "workspace"
    elif "bot" in names:
        lookup = "bot__workspace"
    else:
        return queryset
    if request.user.is_superuser:
        return queryset
    if workspace_ids is None:
        return workspace_scope(queryset, user=request.user, lookup=lookup)
    return queryset.filter(**{f"{lookup}__in": workspace_ids})
