"""Writes for API credentials: create and revoke keys, create and rotate bot signing secrets.

Key formats: server keys are ``psk_<prefix>_<secret>`` (the prefix is stored for lookup,
the whole key only as sha256); widget keys are ``ppk_<random>`` and public by design.
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from collections.abc import Iterable
from datetime import datetime
from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.utils import timezone

from api.key_cache import api_key_cache_clear
from api.models import BotSigningSecret, ServerApiKey, WidgetKey
from api.principal import Principal, PrincipalKind, VisitorSession, visitor_session_issue
from audit.services import audit_change_record
from bots.models import Bot
from conversations.models import Conversation
from core.models import Workspace

SERVER_KEY_PREFIX = "psk_"
WIDGET_KEY_PREFIX = "ppk_"


def key_hash(raw_key: str) -> str:
    """The secret part carries 256 random bits, so a plain sha256 is enough (no slow hash needed)."""
    return hashlib.sha256(raw_key.encode()).hexdigest()


def origin_normalize(origin: str) -> str:
    """``scheme://host[:port]`` in lower case, default ports dropped; raises ValidationError otherwise."""
    parts = urlsplit(origin.strip())
    if parts.scheme not in {"http", "https"} or not parts.hostname or parts.path not in {"", "/"}:
        raise ValidationError(f"{origin!r} is not an origin like https://www.example.com")
    if parts.query or parts.fragment or parts.username:
        raise ValidationError(f"{origin!r} is not an origin like https://www.example.com")
    port = parts.port
    default = {"http": 80, "https": 443}[parts.scheme]
    suffix = f":{port}" if port and port != default else ""
    return f"{parts.scheme}://{parts.hostname.lower()}{suffix}"


def server_api_key_create(
    *,
    workspace: Workspace,
    name: str,
    scopes: Iterable[str] = (),
    expires_at: datetime | None = None,
) -> tuple[ServerApiKey, str]:
    """Returns the row and the plain key, which is never stored and must be shown once."""
    prefix = secrets.token_hex(6)
    raw_key = f"{SERVER_KEY_PREFIX}{prefix}_{secrets.token_urlsafe(32)}"
    key = ServerApiKey.objects.create(
        workspace=workspace,
        name=name,
        prefix=prefix,
        secret_hash=key_hash(raw_key),
        scopes=sorted(set(scopes)),
        expires_at=expires_at,
    )
    return key, raw_key


def server_api_key_revoke(*, key_id: uuid.UUID) -> bool:
    """True when this call revoked the key; False when it was already revoked (or is unknown)."""
    revoked = ServerApiKey.objects.filter(pk=key_id, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )
    api_key_cache_clear()
    if revoked:
        _revocation_audit(ServerApiKey.objects.get(pk=key_id))
    return bool(revoked)


def _revocation_audit(key: ServerApiKey | WidgetKey) -> None:
    """A conditional UPDATE sends no model signal: the revocation's audit entry is written here."""
    revoked_at = key.revoked_at.isoformat() if key.revoked_at else None
    audit_change_record(instance=key, changes={"revoked_at": [None, revoked_at]})


def widget_key_create(*, bot: Bot, name: str, allowed_origins: Iterable[str]) -> WidgetKey:
    origins = sorted({origin_normalize(origin) for origin in allowed_origins})
    if not origins:
        raise ValidationError("A widget key needs at least one allowed origin.")
    return WidgetKey.objects.create(
        bot=bot,
        name=name,
        key=f"{WIDGET_KEY_PREFIX}{secrets.token_urlsafe(24)}",
        allowed_origins=origins,
    )


def widget_key_revoke(*, key_id: uuid.UUID) -> bool:
    revoked = WidgetKey.objects.filter(pk=key_id, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )
    api_key_cache_clear()
    if revoked:
        _revocation_audit(WidgetKey.objects.get(pk=key_id))
    return bool(revoked)


def bot_signing_secret_create(*, bot: Bot) -> BotSigningSecret:
    return BotSigningSecret.objects.create(bot=bot, secret=secrets.token_urlsafe(32))


def bot_signing_secret_rotate(*, bot_id: uuid.UUID) -> None:
    """Signatures made with the old secret stop working at once."""
    now = timezone.now()
    if BotSigningSecret.objects.filter(pk=bot_id).update(
        secret=secrets.token_urlsafe(32), rotated_at=now
    ):
        audit_change_record(
            instance=BotSigningSecret.objects.get(pk=bot_id),
            changes={"secret": ["***", "***"]},
        )
    api_key_cache_clear()


def visitor_session_start(
    *,
    principal: Principal,
    bot: Bot,
    visitor_id: str | None = None,
    widget_visitor_id: str | None = None,
) -> tuple[VisitorSession, str]:
    """Starts a conversation and returns the signed session token that proves it is the caller's.

    Widget visitors always get a server-made visitor id, so a browser cannot claim another's; the
    widget's own id for the browser (`widget_visitor_id`) is only recorded, for privacy requests.
    """
    widget = principal.kind == PrincipalKind.WIDGET
    visitor = secrets.token_urlsafe(16) if widget or not visitor_id else visitor_id
    conversation = Conversation.objects.create(
        bot=bot,
        channel="widget" if widget else "api",
        visitor_id=visitor,
        widget_visitor_id=(widget_visitor_id or "") if widget else "",
        external_user_id=principal.external_user_id or "",
    )
    session = VisitorSession(
        conversation_id=conversation.pk,
        bot_id=bot.pk,
        workspace_id=bot.workspace_id,
        visitor_id=visitor,
        external_user_id=principal.external_user_id,
    )
    return session, visitor_session_issue(session=session)
