"""The workspaces an admin user may act on, for the rag admins' own forms and views."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import HttpRequest

from core.admin_scoping import Grant, workspace_scope
from core.models import Workspace


def workspaces_for(request: HttpRequest, *, grant: Grant) -> QuerySet[Workspace]:
    """The workspaces where the user's role grants `grant` (core.permissions.ROLE_GRANTS)."""
    return workspace_scope(Workspace.objects.all(), user=request.user, lookup="pk", grant=grant)
