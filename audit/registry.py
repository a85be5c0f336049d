"""The one place that says what is audited: every model whose changes matter, named by label (the apps
are above audit on the layer map, so it imports none of them), with its kind, the path to its
workspace and the fields worth a diff. django-auditlog connects them (audit.apps), with the logins.

Writes that bypass model signals (conditional UPDATEs, bulk inserts) call audit.services instead:
key revocation and rotation, document uploads, releases from quarantine."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist

from audit.kinds import AuditKind as Kind


@dataclass(frozen=True)
class Audited:
    label: str  # app_label.ModelName
    kind: str
    workspace: str  # dotted attribute path from an object to its workspace id, or MEMBERSHIPS
    include: tuple[str, ...] = ()  # only these fields (empty: all but `exclude`)
    exclude: tuple[str, ...] = ()
    mask: tuple[str, ...] = ()  # diffed, but stored masked (secrets)
    redact: tuple[str, ...] = ()  # diffed, but stored as "set"/"changed" only (password hashes)
    m2m: tuple[str, ...] = ()
    unless: str = ""  # an attribute that, when set, leaves the object out


# A user belongs to no one workspace: their entries go to every workspace they are a member of (none
# yet when the account is created: superusers see those).
MEMBERSHIPS = "@memberships"

# Bookkeeping that changes without anyone deciding it: not a change that matters.
_STAMPS = ("created_at", "updated_at")

AUDITED: tuple[Audited, ...] = (
    Audited(label="bots.Bot", kind=Kind.BOT, workspace="workspace_id", exclude=_STAMPS),
    Audited(label="bots.BotLocaleText", kind=Kind.BOT, workspace="bot.workspace_id"),
    Audited(
        label="bots.PromptTemplateVersion",
        kind=Kind.TEMPLATE,
        workspace="bot.workspace_id",
        exclude=_STAMPS,
    ),
    Audited(label="prompt_context.Topic", kind=Kind.TOPIC, workspace="bot.workspace_id"),
    Audited(label="prompt_context.LexiconGroup", kind=Kind.LEXICON, workspace="bot.workspace_id"),
    # Staff's documents; a visitor's session document is the visitor's data (erased on request,
    # which an append-only trail could not honour), so it is left out.
    Audited(
        label="rag.Document",
        kind=Kind.DOCUMENT,
        workspace="workspace_id",
        include=("title", "source_url", "file", "filename", "mime_type", "size_bytes"),
        m2m=("bots",),
        unless="conversation_id",
    ),
    # Knowledge sources, as documents: their settings and bots; credentials only as "set"/"changed".
    Audited(
        label="sources.Source",
        kind=Kind.SOURCE,
        workspace="workspace_id",
        exclude=_STAMPS,
        redact=("credentials",),
        m2m=("bots",),
    ),
    Audited(
        label="api.ServerApiKey",
        kind=Kind.API_KEY,
        workspace="workspace_id",
        exclude=(*_STAMPS, "last_used_at", "secret_hash"),
    ),
    Audited(
        label="api.WidgetKey", kind=Kind.WIDGET_KEY, workspace="bot.workspace_id", exclude=_STAMPS
    ),
    Audited(
        label="api.BotSigningSecret",
        kind=Kind.SIGNING_SECRET,
        workspace="bot.workspace_id",
        exclude=_STAMPS,
        mask=("secret",),
    ),
    Audited(label="core.Membership", kind=Kind.MEMBER, workspace="workspace_id", exclude=_STAMPS),
    Audited(label="core.Workspace", kind=Kind.WORKSPACE, workspace="pk", exclude=_STAMPS),
    Audited(label="handoff.HandoffPolicy", kind=Kind.HANDOFF_POLICY, workspace="bot.workspace_id"),
    # Accounts: created, staff and superuser flags, deactivation, deletion; a password change is
    # recorded as such, its hash never (last_login and the profile fields are not decisions).
    Audited(
        label=settings.AUTH_USER_MODEL,
        kind=Kind.USER,
        workspace=MEMBERSHIPS,
        include=("username", "is_staff", "is_superuser", "is_active", "password"),
        redact=("password",),
    ),
)

_BY_LABEL = {audited.label: audited for audited in AUDITED}


@dataclass(frozen=True)
class Target:
    kind: str
    workspaces: list[Any] = field(default_factory=list)
    redact: tuple[str, ...] = ()


def user_workspaces(user_id: Any) -> list[Any]:
    """Every workspace the user is a member of."""
    from core.models import Membership

    return list(Membership.objects.filter(user_id=user_id).values_list("workspace_id", flat=True))


def attribute_path(instance: Any, path: str) -> Any:
    """`a.b_id` read through the related objects; None when one of them is gone."""
    value = instance
    try:
        for name in path.split("."):
            value = getattr(value, name)
            if value is None:
                return None
    except ObjectDoesNotExist:
        return None
    return value


def audit_target(instance: Any) -> Target | None:
    """The kind and workspace of an audited object; None when its model, or the object, is not audited."""
    audited = _BY_LABEL.get(instance._meta.label)
    if audited is None or (audited.unless and getattr(instance, audited.unless, None)):
        return None
    if audited.workspace == MEMBERSHIPS:
        workspaces = user_workspaces(instance.pk) if instance.pk is not None else []
    else:
        workspace_id = attribute_path(instance, audited.workspace)
        workspaces = [workspace_id] if workspace_id else []
    return Target(kind=audited.kind, workspaces=workspaces, redact=audited.redact)


def audited_kind(label: str) -> str | None:
    """The kind of entry an audited model's changes make; None when the model is not audited."""
    audited = _BY_LABEL.get(label)
    return audited.kind if audited else None
