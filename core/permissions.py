"""Who may do what in a workspace: the one table of each role's grants, read by everything that decides.

`ROLE_GRANTS` gives each role (core.models.Membership.Role) the admin verbs it holds on each model, by
app label, so core imports no other Parley app. core.auth turns a user's roles into Django
permissions; core.admin_scoping narrows every admin page, form, action and custom view to the
workspaces whose role grants the verb; handoff.selectors opens the agent console to `CONSOLE_ROLES`.
docs/roles.md holds `roles_table_markdown()`'s output (tests/core/test_roles_docs.py compares them).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.apps import AppConfig
from django.apps import apps as global_apps

from core.models import Membership

FULL = ("add", "change", "delete", "view")
VIEW = ("view",)
VERBS = FULL
Key = tuple[str, str]  # (app label, model name)
Role = Membership.Role
# The pre-roles group every member drew their permissions from (see workspace_admins_group_ensure).
WORKSPACE_ADMINS_GROUP = "Workspace admins"

# Editor: bots, documents, topics and lexicon, templates, curated answers (and what configures a bot:
# its widget look, its handoff policy, the retrieval calibration of its documents).
EDITOR: dict[Key, tuple[str, ...]] = {
    ("core", "workspace"): VIEW,
    ("bots", "bot"): FULL,
    ("bots", "botlocaletext"): FULL,
    ("bots", "prompttemplateversion"): ("add", "change", "view"),
    ("prompt_context", "topic"): FULL,
    ("prompt_context", "lexicongroup"): FULL,
    ("rag", "document"): FULL,
    ("sources", "source"): FULL,  # change: "Sync now"
    ("rag", "workspacefusion"): ("change", "view"),  # change: the Recalibrate button
    ("rag", "chunk"): VIEW,
    ("conversations", "curatedanswer"): FULL,
    ("conversations", "curatedanswerpolicy"): ("add", "change", "view"),
    ("insights", "faqcandidate"): ("change", "view"),  # a candidate becomes a curated answer
    ("widget", "widgetappearance"): ("add", "change", "view"),
    ("handoff", "handoffpolicy"): ("add", "change", "view"),
}

# Analyst: analytics, evaluation and transcripts, read-only.
ANALYST: dict[Key, tuple[str, ...]] = {
    ("core", "workspace"): VIEW,
    ("conversations", "conversation"): VIEW,
    ("conversations", "turn"): VIEW,
    ("conversations", "securityevent"): VIEW,
    ("conversations", "ragsearchexecution"): VIEW,
    ("handoff", "turnfeedback"): VIEW,
    ("insights", "analyzedturn"): VIEW,
    ("insights", "gapclustering"): VIEW,
    ("insights", "gapcluster"): VIEW,
    ("insights", "evaluationset"): VIEW,
    ("insights", "evaluationcase"): VIEW,
    ("insights", "evaluationrun"): VIEW,
    ("insights", "evaluationresult"): VIEW,
}

# What a workspace member could do before the roles (the "Workspace admins" group's grants): kept for
# the historical migrations that fill that group, and as the floor the owner role must cover
# (core/migrations/0003_membership_roles.py maps every member to owner).
MEMBER_GRANTS_BEFORE_ROLES: dict[Key, tuple[str, ...]] = {
    **EDITOR,
    **ANALYST,
    ("core", "workspace"): VIEW,
    ("core", "membership"): VIEW,
    ("handoff", "turnfeedback"): VIEW,
    ("api", "serverapikey"): ("add", "change", "view"),
    ("api", "widgetkey"): ("add", "change", "view"),
    ("api", "botsigningsecret"): ("add", "change", "view"),
    ("insights", "gapclustering"): ("add", "view"),
    ("insights", "evaluationset"): FULL,
    ("insights", "evaluationcase"): FULL,
    ("insights", "evaluationrun"): ("add", "view", "delete"),
    ("privacy", "visitorerasure"): VIEW,
    ("connectors", "channel"): FULL,
    ("connectors", "outboxmessage"): ("change", "view"),  # change: queue a failed message again
}

# Owner: everything a member had, plus the workspace's settings and its members.
OWNER: dict[Key, tuple[str, ...]] = {
    **MEMBER_GRANTS_BEFORE_ROLES,
    ("core", "workspace"): ("change", "view"),
    ("core", "membership"): FULL,
    ("audit", "auditentry"): VIEW,  # rows: only the workspaces the user owns (audit.selectors)
}

ROLE_GRANTS: dict[str, dict[Key, tuple[str, ...]]] = {
    Role.OWNER: OWNER,
    Role.EDITOR: EDITOR,
    Role.ANALYST: ANALYST,
    Role.AGENT: {},
}

# The agent console (agent/): answering visitors handed over to a human.
CONSOLE_ROLES = frozenset({Role.OWNER, Role.AGENT})


def role_allows(*, role: str, key: Key, verb: str) -> bool:
    return verb in ROLE_GRANTS.get(role, {}).get(key, ())


def roles_permissions(*, roles: Iterable[str]) -> set[str]:
    """Django permission names ("app.verb_model") of the roles, for the authentication backend."""
    return {
        f"{app}.{verb}_{model}"
        for role in set(roles)
        for (app, model), verbs in ROLE_GRANTS.get(role, {}).items()
        for verb in verbs
    }


def roles_table_markdown() -> str:
    """The table docs/roles.md shows: one row per model, the verbs each role holds."""
    roles = list(ROLE_GRANTS)
    keys = sorted({key for grants in ROLE_GRANTS.values() for key in grants})
    header = "| Model | " + " | ".join(Role(role).label for role in roles) + " |"
    lines = [header, "|---" * (len(roles) + 1) + "|"]
    for key in keys:
        cells = [", ".join(ROLE_GRANTS[role].get(key, ())) or "—" for role in roles]
        lines.append(f"| `{key[0]}.{key[1]}` | " + " | ".join(cells) + " |")
    console = ["yes" if role in CONSOLE_ROLES else "—" for role in roles]
    lines.append("| agent console | " + " | ".join(console) + " |")
    return "\n".join(lines)


def workspace_admins_group_ensure(*, apps: Any = global_apps, app_label: str | None = None) -> None:
    """Historical: fill the pre-roles "Workspace admins" group (migrations written before the roles call
    it). No membership reads that group any more: the roles' grants come from ROLE_GRANTS."""
    group_model = apps.get_model("auth", "Group")
    permission_model = apps.get_model("auth", "Permission")
    group, _ = group_model.objects.get_or_create(name=WORKSPACE_ADMINS_GROUP)
    for (label, model), actions in MEMBER_GRANTS_BEFORE_ROLES.items():
        if app_label is not None and label != app_label:
            continue
        codenames = [f"{action}_{model}" for action in actions]
        group.permissions.add(
            *permission_model.objects.filter(content_type__app_label=label, codename__in=codenames)
        )


def grants_after_migrate(sender: AppConfig, apps: Any = global_apps, **kwargs: Any) -> None:
    """post_migrate receiver: keep the historical group's grants (see workspace_admins_group_ensure)."""
    if any(label == sender.label for label, _ in MEMBER_GRANTS_BEFORE_ROLES):
        workspace_admins_group_ensure(apps=apps, app_label=sender.label)
