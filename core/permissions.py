"""The "Workspace admins" group: the admin permissions every workspace member gets (see core.auth).

Row-level scoping is core.admin_scoping's job: every model granted here has a workspace-scoped admin.
The grants name models by app label, so core imports no other Parley app. The group is kept up to
date after every `migrate` (and every test flush) by a post_migrate receiver, app by app, right after
Django has created that app's permissions; migrations that need the group earlier call
`workspace_admins_group_ensure` with their historical registry.
"""

from __future__ import annotations

from typing import Any

from django.apps import AppConfig
from django.apps import apps as global_apps

from core.auth import WORKSPACE_ADMINS_GROUP

FULL = ("add", "change", "delete", "view")

GRANTS: dict[tuple[str, str], tuple[str, ...]] = {
    ("core", "workspace"): ("view",),
    ("core", "membership"): ("view",),
    ("bots", "bot"): FULL,
    ("bots", "botlocaletext"): FULL,
    ("bots", "prompttemplateversion"): ("add", "change", "view"),
    ("prompt_context", "topic"): FULL,
    ("prompt_context", "lexicongroup"): FULL,
    ("rag", "document"): FULL,
    ("rag", "workspacefusion"): ("change", "view"),  # change: the Recalibrate button
    ("rag", "chunk"): ("view",),
    ("conversations", "conversation"): ("view",),
    ("conversations", "turn"): ("view",),
    ("conversations", "securityevent"): ("view",),
    ("conversations", "ragsearchexecution"): ("view",),
    ("conversations", "curatedanswer"): FULL,
    ("conversations", "curatedanswerpolicy"): ("add", "change", "view"),
    ("handoff", "turnfeedback"): ("view",),
    ("handoff", "handoffpolicy"): ("add", "change", "view"),
    ("api", "serverapikey"): ("add", "change", "view"),
    ("api", "widgetkey"): ("add", "change", "view"),
    ("api", "botsigningsecret"): ("add", "change", "view"),
    ("widget", "widgetappearance"): ("add", "change", "view"),
    ("insights", "analyzedturn"): ("view",),
    ("insights", "gapclustering"): ("add", "view"),
    ("insights", "gapcluster"): ("view",),
    ("insights", "evaluationset"): FULL,
    ("insights", "evaluationcase"): FULL,
    ("insights", "evaluationrun"): ("add", "view", "delete"),
    ("insights", "evaluationresult"): ("view",),
    ("insights", "faqcandidate"): ("change", "view"),
    ("privacy", "visitorerasure"): ("view",),
    ("connectors", "channel"): FULL,
    ("connectors", "outboxmessage"): ("change", "view"),  # change: queue a failed message again
    ("audit", "auditentry"): ("view",),  # rows: only the workspaces the user owns (audit.selectors)
}


def workspace_admins_group_ensure(*, apps: Any = global_apps, app_label: str | None = None) -> None:
    """Create the group when missing and add the grants (of one app, or all); `apps` may be a migration's registry."""
    group_model = apps.get_model("auth", "Group")
    permission_model = apps.get_model("auth", "Permission")
    group, _ = group_model.objects.get_or_create(name=WORKSPACE_ADMINS_GROUP)
    for (label, model), actions in GRANTS.items():
        if app_label is not None and label != app_label:
            continue
        codenames = [f"{action}_{model}" for action in actions]
        group.permissions.add(
            *permission_model.objects.filter(content_type__app_label=label, codename__in=codenames)
        )


def grants_after_migrate(sender: AppConfig, apps: Any = global_apps, **kwargs: Any) -> None:
    """post_migrate receiver: grant the sender app's permissions, which Django has just created."""
    if any(label == sender.label for label, _ in GRANTS):
        workspace_admins_group_ensure(apps=apps, app_label=sender.label)
