"""Staff authentication backends: local passwords that a setting turns off, and OpenID Connect.

`OidcStaffBackend` is mozilla-django-oidc's backend (the code flow with PKCE and a nonce, the token
request, the JWKS lookup) with three changes: the ID token is decoded by PyJWT with its issuer,
audience, expiry and issue time required and checked (the library checks none of the first two), the
person is found by (issuer, subject) rather than by e-mail, and provisioning is `sso.services`.
"""

from __future__ import annotations

from typing import Any

import jwt
from django.conf import settings
from django.contrib.auth.models import User
from django.http import HttpRequest
from mozilla_django_oidc.auth import OIDCAuthenticationBackend

from core.auth import WorkspaceMemberBackend
from sso.errors import SsoRefused
from sso.services import staff_sign_in

# Seconds of clock difference tolerated between the provider and Parley on exp, iat and nbf.
CLOCK_LEEWAY = 30


class LocalPasswordBackend(WorkspaceMemberBackend):
    """Usernames and passwords, while PARLEY_LOCAL_PASSWORDS allows them; permissions either way."""

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> Any:
        if not settings.PARLEY_LOCAL_PASSWORDS:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


class OidcStaffBackend(OIDCAuthenticationBackend):  # type: ignore[misc]  # mozilla-django-oidc ships no type hints
    """Signs staff in through the provider; grants no permission itself (LocalPasswordBackend does)."""

    def authenticate(self, request: HttpRequest | None, **kwargs: Any) -> User | None:
        if not settings.OIDC_RP_CLIENT_ID:
            return None
        user: User | None = super().authenticate(request, **kwargs)
        return user

    def get_payload_data(self, token: bytes | str, key: Any) -> dict[str, Any]:
        try:
            payload: dict[str, Any] = jwt.decode(
                token,
                key,
                algorithms=[self.OIDC_RP_SIGN_ALGO],
                audience=self.OIDC_RP_CLIENT_ID,
                issuer=settings.PARLEY_OIDC_ISSUER,
                leeway=CLOCK_LEEWAY,
                options={"require": ["iss", "aud", "exp", "iat", "sub"]},
            )
        except jwt.ExpiredSignatureError as exc:
            raise _token_refused("expired", exc) from exc
        except jwt.InvalidAudienceError as exc:
            raise _token_refused("audience", exc) from exc
        except jwt.InvalidIssuerError as exc:
            raise _token_refused("issuer", exc) from exc
        except jwt.InvalidTokenError as exc:
            raise _token_refused("invalid", exc) from exc
        # Several audiences: the token must have been issued to Parley itself (OIDC Core 3.1.3.7).
        azp = payload.get("azp")
        if isinstance(payload["aud"], list) and len(payload["aud"]) > 1 and azp is None:
            raise _token_refused("audience", "several audiences and no authorized party")
        if azp is not None and azp != self.OIDC_RP_CLIENT_ID:
            raise _token_refused("audience", f"issued to {azp!r}")
        return payload

    def get_userinfo(
        self, access_token: str, id_token: str, payload: dict[str, Any]
    ) -> dict[str, Any]:
        """The userinfo endpoint's claims over the ID token's; both must name the same subject."""
        userinfo: dict[str, Any] = super().get_userinfo(access_token, id_token, payload)
        if userinfo.get("sub") != payload.get("sub"):
            raise _token_refused("subject", "the userinfo answer names another subject")
        return {**payload, **userinfo, "iss": payload["iss"]}

    def get_or_create_user(self, access_token: str, id_token: str, payload: dict[str, Any]) -> User:
        claims = self.get_userinfo(access_token, id_token, payload)
        return staff_sign_in(claims=claims, issuer=str(payload["iss"]))

    def get_user_permissions(self, user_obj: Any, obj: Any = None) -> set[str]:
        return set()

    def get_group_permissions(self, user_obj: Any, obj: Any = None) -> set[str]:
        return set()

    def get_all_permissions(self, user_obj: Any, obj: Any = None) -> set[str]:
        return set()


def _token_refused(reason: str, detail: object) -> SsoRefused:
    return SsoRefused(
        f"The provider's ID token was refused ({reason}): {detail}",
        code="sso_token_invalid",
        extra={"reason": reason},
    )
