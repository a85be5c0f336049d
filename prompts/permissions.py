"""The "Workspace admins" group: the admin permissions every workspace member gets (see core.auth).

Used by the migration that creates the group, and by tests that flush the database.
"""

from __future__ import annotations

from typing import Any

from django.apps import apps as global_apps

from core.auth import WORKSPACE_ADMINS_GROUP

GRANTS: dict[tuple[str, str], tuple[str, ...]] = {
    ("bots", "bot"): ("add", "change", "delete", "view"),
    ("bots", "botlocaletext"): ("add", "change", "delete", "view"),
    ("bots", "prompttemplateversion"): ("add", "change", "view"),
    ("prompt_context", "topic"): ("add", "change", "delete", "view"),
    ("prompt_context", "lexicongroup"): ("add", "change", "delete", "view"),
    ("core", "workspace"): ("view",),
    ("core", "membership"): ("view",),
    ("conversations", "ragsearchexecution"): ("view",),
}


def workspace_admins_group_ensure(*, apps: Any = global_apps) -> None:
    """Create the group when missing and add the grants; `apps` is a migration's historical registry or the real one."""
    group_model = apps.get_model("auth", "Group")
    permission_model = apps.get_model("auth", "Permission")
    group, _ = group_model.objects.get_or_create(name=WORKSPACE_ADMINS_GROUP)
    for (app_label, model), actions in GRANTS.items():
        codenames = [f"{action}_{model}" for action in actions]
        group.permissions.add(
            *permission_model.objects.filter(content_type__app_label=app_label, codename__in=codenames)
        )
