"""PARLEY_OIDC_ROLE_MAP read into rules: which provider group gives which role in which workspace.

Each entry is `group=workspace-slug:role`. The group is everything before the last `=` (Keycloak's
`/parley/editors` and Entra's object ids both fit), the slug and role after it. Roles are strings checked
against `Membership.Role` when the map is read, at sign-in, so the map follows the roles Parley has.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from sso.errors import SsoMisconfigured


@dataclass(frozen=True)
class RoleRule:
    group: str
    workspace_slug: str
    role: str


def role_map_parse(*, entries: Sequence[str], roles: Collection[str]) -> tuple[RoleRule, ...]:
    """The rules in the order written (the first rule for a workspace wins); a malformed entry or an
    unknown role is refused whole, naming the entry, rather than half-applied."""
    rules: list[RoleRule] = []
    for entry in entries:
        group, equals, target = entry.strip().rpartition("=")
        slug, colon, role = target.partition(":")
        group, slug, role = group.strip(), slug.strip(), role.strip()
        if not (equals and colon and group and slug and role):
            raise SsoMisconfigured(
                f"PARLEY_OIDC_ROLE_MAP entry {entry!r} is not group=workspace-slug:role.",
                extra={"entry": entry},
            )
        if role not in roles:
            raise SsoMisconfigured(
                f"PARLEY_OIDC_ROLE_MAP entry {entry!r} names the role {role!r}; Parley's roles are "
                f"{', '.join(sorted(roles))}.",
                extra={"entry": entry, "role": role},
            )
        rules.append(RoleRule(group=group, workspace_slug=slug, role=role))
    return tuple(rules)
