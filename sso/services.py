"""Signing a staff member in from the provider's verified claims: provisioning and workspace roles.

One transaction per sign-in: the user, their identity and their memberships are written together or
not at all, so a refused sign-in (no workspace, an account conflict) leaves nothing behind.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from core.models import Membership
from sso.errors import SsoRefused
from sso.models import OidcIdentity
from sso.rolemap import role_map_parse
from sso.selectors import WorkspaceRoles, identity_user_get, workspace_roles_for_groups

USERNAME_MAX = 150


def claim_groups(*, claims: Mapping[str, Any], claim: str) -> frozenset[str]:
    """The groups claim as a set of strings: providers send a list, a few a single string."""
    value = claims.get(claim)
    if isinstance(value, str):
        return frozenset({value})
    if isinstance(value, list | tuple):
        return frozenset(str(item) for item in value)
    return frozenset()


def staff_sign_in(*, claims: Mapping[str, Any], issuer: str) -> User:
    """The staff user these verified claims sign in, provisioned on the first sign-in, with the
    memberships PARLEY_OIDC_ROLE_MAP gives their groups in the workspaces it names."""
    subject = str(claims.get("sub") or "")
    if not subject:
        raise SsoRefused(
            "The provider's answer names no subject.",
            code="sso_token_invalid",
            extra={"reason": "subject"},
        )
    rules = role_map_parse(entries=settings.PARLEY_OIDC_ROLE_MAP, roles=Membership.Role.values)
    groups = claim_groups(claims=claims, claim=settings.PARLEY_OIDC_GROUPS_CLAIM)
    with transaction.atomic():
        user = identity_user_get(issuer=issuer, subject=subject)
        if user is None:
            user = _linked_user(claims=claims)
        if user is not None and not user.is_active:
            raise SsoRefused("Your Parley account is deactivated.", code="sso_account_disabled")
        mapped = workspace_roles_for_groups(groups=groups, rules=rules)
        if not mapped.roles and not _keeps_other_access(user=user, mapped=mapped):
            raise SsoRefused(
                "None of your groups gives access to a Parley workspace.",
                code="sso_no_workspace",
                extra={"groups": sorted(groups)},
            )
        if user is None:
            user = User.objects.create_user(
                username=_free_username(claims=claims, issuer=issuer, subject=subject)
            )
        OidcIdentity.objects.update_or_create(
            user=user,
            defaults={"issuer": issuer, "subject": subject, "last_login_at": timezone.now()},
        )
        _profile_update(user=user, claims=claims)
        _memberships_sync(user=user, mapped=mapped)
    return user


def _linked_user(*, claims: Mapping[str, Any]) -> User | None:
    """An existing account without an identity that this first sign-in takes over, when allowed: only
    by an e-mail address the provider says it verified, and only with PARLEY_OIDC_LINK_BY_EMAIL."""
    email = str(claims.get("email") or "")
    if not (settings.PARLEY_OIDC_LINK_BY_EMAIL and email and claims.get("email_verified") is True):
        return None
    candidates = list(
        User.objects.filter(email__iexact=email, oidc_identity__isnull=True).order_by("pk")[:2]
    )
    if len(candidates) > 1:
        raise SsoRefused(
            "Several Parley accounts have your e-mail address; an administrator must link one.",
            code="sso_account_conflict",
        )
    return candidates[0] if candidates else None


def _keeps_other_access(*, user: User | None, mapped: WorkspaceRoles) -> bool:
    """An existing superuser, or a member of a workspace the map does not name, still has access."""
    if user is None:
        return False
    if user.is_superuser:
        return True
    return Membership.objects.filter(user=user).exclude(workspace_id__in=mapped.managed).exists()


def _free_username(*, claims: Mapping[str, Any], issuer: str, subject: str) -> str:
    """The provider's preferred username (else e-mail, else subject); a local account's name is never
    reused: the new one gets a suffix derived from the subject."""
    base = str(claims.get("preferred_username") or claims.get("email") or subject)
    base = base[: USERNAME_MAX - 9]
    if not User.objects.filter(username=base).exists():
        return base
    suffix = hashlib.sha256(f"{issuer}\n{subject}".encode()).hexdigest()[:8]
    return f"{base}-{suffix}"


def _profile_update(*, user: User, claims: Mapping[str, Any]) -> None:
    """The provider owns the name and address of its users; every sign-in brings them up to date."""
    user.email = str(claims.get("email") or user.email)[:254]
    user.first_name = str(claims.get("given_name") or user.first_name)[:150]
    user.last_name = str(claims.get("family_name") or user.last_name)[:150]
    user.is_staff = True
    user.save(update_fields=["email", "first_name", "last_name", "is_staff"])


def _memberships_sync(*, user: User, mapped: WorkspaceRoles) -> None:
    """In the workspaces the map names, the memberships become exactly what the groups give."""
    current = {
        membership.workspace_id: membership
        for membership in Membership.objects.filter(user=user, workspace_id__in=mapped.managed)
    }
    gone = [pk for pk in current if pk not in mapped.roles]
    if gone:
        Membership.objects.filter(user=user, workspace_id__in=gone).delete()
    for workspace_id, role in mapped.roles.items():
        membership = current.get(workspace_id)
        if membership is None:
            Membership.objects.create(user=user, workspace_id=workspace_id, role=role)
        elif membership.role != role:
            membership.role = role
            membership.save(update_fields=["role"])
