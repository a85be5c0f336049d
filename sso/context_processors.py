"""What the admin's login page needs to know: is single sign-on on, and may staff still use passwords."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest


def sign_in(request: HttpRequest) -> dict[str, Any]:
    return {
        "sso_enabled": bool(settings.OIDC_RP_CLIENT_ID),
        "sso_button_label": settings.PARLEY_OIDC_BUTTON_LABEL,
        "local_passwords": settings.PARLEY_LOCAL_PASSWORDS,
    }
