"""DRF authentication and permissions: an API key in, a Principal out (``request.auth``).

Headers: ``Authorization: Bearer <key>`` (a server ``psk_`` or widget ``ppk_`` key),
``X-Parley-Session`` (visitor session token), ``X-Parley-External-User`` and, for widget
keys, ``X-Parley-External-User-Signature``.
"""

from __future__ import annotations

import hmac
import uuid
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import ValidationError
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from rest_framework.authentication import BaseAuthentication
from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from api.errors import ApiError, ErrorCode
from api.key_cache import api_key_entry
from api.models import SCOPES_BY_DEFAULT, BotSigningSecret, ServerApiKey, WidgetKey
from api.principal import (
    WIDGET_SCOPES,
    Principal,
    PrincipalKind,
    external_user_signature_check,
    visitor_session_read,
)
from api.services import SERVER_KEY_PREFIX, WIDGET_KEY_PREFIX, key_hash, origin_normalize

SESSION_HEADER = "X-Parley-Session"
EXTERNAL_USER_HEADER = "X-Parley-External-User"
EXTERNAL_USER_SIGNATURE_HEADER = "X-Parley-External-User-Signature"
_LAST_USED_PRECISION = timedelta(minutes=5)
_MAX_EXTERNAL_USER_ID = 255


def _bearer(request: Request) -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return request.headers.get("X-Api-Key") or None


def _browser_origin(request: Request) -> str | None:
    """The Origin header; for same-origin GETs (which browsers send without Origin), the Referer's origin.

    Safe for publishable keys (security review, issue 6): a key travels only in a header, and a browser
    always adds Origin to a cross-origin request carrying one (no-cors loads cannot), so a key-bearing
    browser request without Origin is same-origin; outside browsers, Origin is as forgeable as Referer.
    A present Origin (even ``null``) always wins, and only GET/HEAD may fall back.
    """
    origin = request.headers.get("Origin")
    if origin or request.method not in {"GET", "HEAD"}:
        return origin
    referer = urlsplit(request.headers.get("Referer", ""))
    return f"{referer.scheme}://{referer.netloc}" if referer.scheme and referer.netloc else None


def server_key_principal(*, raw_key: str) -> Principal:
    """Unknown, malformed, revoked and expired keys all fail the same way."""
    digest = key_hash(raw_key)
    entry = api_key_entry(
        digest=digest, read=lambda: _server_key_read(raw_key=raw_key, digest=digest)
    )
    expires_at = entry["expires_at"]
    if expires_at is not None and datetime.fromisoformat(expires_at) <= timezone.now():
        raise ApiError(ErrorCode.AUTHENTICATION_FAILED)
    return Principal(
        kind=PrincipalKind.SERVER,
        key_id=uuid.UUID(entry["key_id"]),
        workspace_id=uuid.UUID(entry["workspace_id"]),
        bot_id=None,
        scopes=frozenset(entry["scopes"] or SCOPES_BY_DEFAULT),
    )


def _server_key_read(*, raw_key: str, digest: str) -> dict[str, Any]:
    """The key's cache entry, from the database (see api.key_cache); a missing or revoked key fails."""
    prefix = raw_key.removeprefix(SERVER_KEY_PREFIX).partition("_")[0]
    now = timezone.now()
    key = (
        ServerApiKey.objects.filter(prefix=prefix, revoked_at__isnull=True)
        .filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now))
        .only("id", "workspace_id", "secret_hash", "scopes", "expires_at", "last_used_at")
        .first()
    )
    if key is None or not hmac.compare_digest(key.secret_hash, digest):
        raise ApiError(ErrorCode.AUTHENTICATION_FAILED)
    if key.last_used_at is None or key.last_used_at < now - _LAST_USED_PRECISION:
        # Coarse on purpose: one write per key every few minutes, not one per request (the cache's
        # TTL is shorter than this precision, so a key in use is read, and marked, often enough).
        ServerApiKey.objects.filter(pk=key.pk).update(last_used_at=now)
    return {
        "kind": PrincipalKind.SERVER,
        "key_id": str(key.pk),
        "workspace_id": str(key.workspace_id),
        "scopes": list(key.scopes),
        "expires_at": key.expires_at.isoformat() if key.expires_at else None,
    }


def widget_key_principal(*, raw_key: str, origin: str | None) -> tuple[Principal, str | None]:
    """A widget key is valid only from one of its allowed origins; returns the bot's signing secret too."""
    entry = api_key_entry(digest=key_hash(raw_key), read=lambda: _widget_key_read(raw_key=raw_key))
    try:
        normalized = origin_normalize(origin) if origin else None
    except ValidationError:
        normalized = None
    if normalized is None:
        raise ApiError(ErrorCode.AUTHENTICATION_FAILED)
    if normalized not in entry["allowed_origins"]:
        raise _origin_refused(origin=normalized, key_id=entry["key_id"])
    principal = Principal(
        kind=PrincipalKind.WIDGET,
        key_id=uuid.UUID(entry["key_id"]),
        workspace_id=uuid.UUID(entry["workspace_id"]),
        bot_id=uuid.UUID(entry["bot_id"]),
        scopes=WIDGET_SCOPES,
        origin=normalized,
    )
    return principal, entry["signing_secret"]


def _origin_refused(*, origin: str, key_id: str) -> ApiError:
    page = reverse("admin:api_widgetkey_change", args=[key_id])
    message = (
        f"This widget key does not allow the origin {origin}. Add {origin} to the key's allowed "
        f"origins on its admin page: {page}"
    )
    return ApiError(
        ErrorCode.ORIGIN_NOT_ALLOWED, message, extra={"origin": origin, "admin_page": page}
    )


def _widget_key_read(*, raw_key: str) -> dict[str, Any]:
    """The key's cache entry, from the database (see api.key_cache); a missing or revoked key fails."""
    key = (
        WidgetKey.objects.filter(key=raw_key, revoked_at__isnull=True)
        .select_related("bot__signing_secret")
        .only(
            "id", "allowed_origins", "bot__id", "bot__workspace_id", "bot__signing_secret__secret"
        )
        .first()
    )
    if key is None:
        raise ApiError(ErrorCode.AUTHENTICATION_FAILED)
    try:
        secret: str | None = key.bot.signing_secret.secret
    except BotSigningSecret.DoesNotExist:
        secret = None
    return {
        "kind": PrincipalKind.WIDGET,
        "key_id": str(key.pk),
        "workspace_id": str(key.bot.workspace_id),
        "bot_id": str(key.bot.pk),
        "allowed_origins": list(key.allowed_origins),
        "signing_secret": secret,
    }


class ApiKeyAuthentication(BaseAuthentication):
    def authenticate(self, request: Request) -> tuple[AnonymousUser, Principal] | None:
        raw_key = _bearer(request)
        if raw_key is None:
            return None
        signing_secret: str | None = None
        if raw_key.startswith(SERVER_KEY_PREFIX):
            principal = server_key_principal(raw_key=raw_key)
        elif raw_key.startswith(WIDGET_KEY_PREFIX):
            principal, signing_secret = widget_key_principal(
                raw_key=raw_key, origin=_browser_origin(request)
            )
        else:
            raise ApiError(ErrorCode.AUTHENTICATION_FAILED)
        principal = self._with_external_user(request, principal, signing_secret)
        token = request.headers.get(SESSION_HEADER)
        if token:
            principal = principal.with_visitor(
                visitor_session_read(token=token, principal=principal)
            )
        return AnonymousUser(), principal

    def _with_external_user(
        self, request: Request, principal: Principal, secret: str | None
    ) -> Principal:
        external_user_id = (request.headers.get(EXTERNAL_USER_HEADER) or "").strip()
        if not external_user_id:
            return principal
        if len(external_user_id) > _MAX_EXTERNAL_USER_ID:
            raise ApiError(
                ErrorCode.INVALID_REQUEST, f"{EXTERNAL_USER_HEADER} is longer than 255 characters."
            )
        if principal.kind == PrincipalKind.WIDGET:
            external_user_signature_check(
                secret=secret,
                external_user_id=external_user_id,
                signature=request.headers.get(EXTERNAL_USER_SIGNATURE_HEADER),
            )
        return replace(principal, external_user_id=external_user_id)

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="parley"'


class HasPrincipal(BasePermission):
    """Every API view needs a key; a view may also name ``required_scope``."""

    def has_permission(self, request: Request, view: object) -> bool:
        principal = request.auth
        if not isinstance(principal, Principal):
            raise ApiError(ErrorCode.AUTHENTICATION_REQUIRED)
        scope = getattr(view, "required_scope", None)
        if scope and not principal.has_scope(scope):
            raise ApiError(ErrorCode.INSUFFICIENT_SCOPE, extra={"required_scope": scope})
        return True
