"""Reads of single sign-on: the user behind a provider's subject, and the workspaces a person's groups map to."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from django.contrib.auth.models import User

from core.models import Workspace
from sso.models import OidcIdentity
from sso.rolemap import RoleRule

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class WorkspaceRoles:
    """The role the groups give in each workspace (by id), and every workspace the map names: the map
    decides membership in those, and leaves the others to the admin."""

    roles: dict[uuid.UUID, str]
    managed: frozenset[uuid.UUID]


def identity_user_get(*, issuer: str, subject: str) -> User | None:
    identity = (
        OidcIdentity.objects.select_related("user").filter(issuer=issuer, subject=subject).first()
    )
    return identity.user if identity is not None else None


def workspace_roles_for_groups(
    *, groups: Collection[str], rules: Sequence[RoleRule]
) -> WorkspaceRoles:
    slugs = {rule.workspace_slug for rule in rules}
    workspaces = dict(Workspace.objects.filter(slug__in=slugs).values_list("slug", "id"))
    for slug in sorted(slugs - workspaces.keys()):
        logger.warning("PARLEY_OIDC_ROLE_MAP names the workspace %r, which does not exist", slug)
    roles: dict[uuid.UUID, str] = {}
    for rule in rules:
        workspace_id = workspaces.get(rule.workspace_slug)
        if workspace_id is not None and rule.group in groups:
            roles.setdefault(workspace_id, rule.role)
    return WorkspaceRoles(roles=roles, managed=frozenset(workspaces.values()))
