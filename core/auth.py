"""Workspace roles grant admin permissions: a user holds the Django permissions of every role they have.

Deriving them from memberships (rather than copying users into groups) means changing or removing a
membership changes the rights at once. What each role grants is core.permissions.ROLE_GRANTS; the
row-level part (which workspace's rows) is core.admin_scoping's job.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.backends import ModelBackend

from core.models import Membership
from core.permissions import WORKSPACE_ADMINS_GROUP, roles_permissions

__all__ = ["WORKSPACE_ADMINS_GROUP", "WorkspaceMemberBackend", "workspace_roles"]


def workspace_roles(*, user: Any) -> dict[Any, str]:
    """{workspace id: role} of a user, read once per user object (one query per request)."""
    if user.is_anonymous or not user.is_active:
        return {}
    if not hasattr(user, "_workspace_roles_cache"):
        user._workspace_roles_cache = dict(
            Membership.objects.filter(user_id=user.pk).values_list("workspace_id", "role")
        )
    roles: dict[Any, str] = user._workspace_roles_cache
    return roles


class WorkspaceMemberBackend(ModelBackend):
    def get_group_permissions(self, user_obj: Any, obj: Any = None) -> set[str]:
        """The user's own groups' permissions plus those of the roles they hold in any workspace."""
        if not user_obj.is_active or user_obj.is_anonymous or obj is not None:
            return set()
        if user_obj.is_superuser:
            return super().get_group_permissions(user_obj, obj)
        if not hasattr(user_obj, "_group_perm_cache"):
            own = super().get_group_permissions(user_obj, obj)
            roles = workspace_roles(user=user_obj).values()
            user_obj._group_perm_cache = own | roles_permissions(roles=roles)
        permissions: set[str] = user_obj._group_perm_cache
        return permissions
