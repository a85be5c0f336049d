"""Single sign-on identities in the admin: who is linked to which provider subject.

Only superusers see it (no workspace role is granted its permissions, core.permissions): unlinking an
identity, or linking an existing account to a subject before its first sign-in, is an operator's act.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from sso.models import OidcIdentity


@admin.register(OidcIdentity)
class OidcIdentityAdmin(admin.ModelAdmin[OidcIdentity]):
    list_display = ("user", "subject", "issuer", "created_at", "last_login_at")
    search_fields = ("user__username", "user__email", "subject")
    list_filter = ("issuer",)
    raw_id_fields = ("user",)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        # A link is made or removed, never bent to another person.
        if obj is not None:
            return ("user", "issuer", "subject", "created_at", "last_login_at")
        return ("created_at", "last_login_at")
