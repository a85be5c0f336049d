"""Workspace membership grants admin permissions: members get those of the "Workspace admins" group.

Deriving them from memberships (rather than copying users into the group) means removing a
membership removes the rights at once. Row-level scoping is core.admin_scoping's job.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Permission
from django.db.models import Exists, Q

from core.models import Membership

WORKSPACE_ADMINS_GROUP = "Workspace admins"


class WorkspaceMemberBackend(ModelBackend):
    def get_group_permissions(self, user_obj: Any, obj: Any = None) -> set[str]:
        """The user's own groups' permissions plus, for a workspace member, the Workspace admins' ones.

        One query instead of ModelBackend's group query plus a membership check.
        """
        if not user_obj.is_active or user_obj.is_anonymous or obj is not None:
            return set()
        if user_obj.is_superuser:
            return super().get_group_permissions(user_obj, obj)
        if not hasattr(user_obj, "_group_perm_cache"):
            is_member = Exists(Membership.objects.filter(user_id=user_obj.pk))
            rows = (
                Permission.objects.filter(
                    Q(group__user=user_obj) | Q(is_member, group__name=WORKSPACE_ADMINS_GROUP)
                )
                .values_list("content_type__app_label", "codename")
                .distinct()
            )
            user_obj._group_perm_cache = {f"{app}.{codename}" for app, codename in rows}
        return user_obj._group_perm_cache
