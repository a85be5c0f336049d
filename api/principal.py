"""Who is calling: the Principal every API view receives as ``request.auth``, and visitor identity.

A visitor session is a signed token the server issues for one conversation; an
external_user_id comes from a server key as is, or from a widget key only with an
HMAC-SHA256 signature made with the bot's signing secret.
"""

from __future__ import annotations

import hashlib
import hmac
import uuid
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from django.conf import settings
from django.core import signing

from api.errors import ApiError, ErrorCode
from api.models import Scope

_SESSION_SALT = "parley.api.visitor-session"
WIDGET_SCOPES = frozenset({Scope.CHAT.value, Scope.CHUNKS_READ.value})


class PrincipalKind(StrEnum):
    SERVER = "server"
    WIDGET = "widget"


@dataclass(frozen=True)
class VisitorSession:
    """What a visitor session token proves: this visitor holds this conversation of this bot."""

    conversation_id: uuid.UUID
    bot_id: uuid.UUID
    workspace_id: uuid.UUID
    visitor_id: str
    external_user_id: str | None = None


@dataclass(frozen=True)
class Principal:
    kind: PrincipalKind
    key_id: uuid.UUID
    workspace_id: uuid.UUID
    bot_id: uuid.UUID | None  # set for widget keys: the only bot they may use
    scopes: frozenset[str]
    external_user_id: str | None = None
    visitor: VisitorSession | None = None
    origin: str | None = None  # the verified Origin of a widget call; CORS answers only it

    def has_scope(self, scope: str) -> bool:
        return scope in self.scopes

    def may_use_bot(self, *, bot_id: uuid.UUID, workspace_id: uuid.UUID) -> bool:
        """The one rule for bots: same workspace, and a widget key only its own bot."""
        if workspace_id != self.workspace_id:
            return False
        return self.bot_id is None or self.bot_id == bot_id

    @property
    def visitor_identity(self) -> str | None:
        """Whom per-visitor rate limits count: the external user, else the session's visitor."""
        if self.external_user_id:
            return f"ext:{self.external_user_id}"
        if self.visitor:
            return f"visitor:{self.visitor.visitor_id}"
        return None

    def with_visitor(self, session: VisitorSession) -> Principal:
        return replace(
            self,
            visitor=session,
            external_user_id=self.external_user_id or session.external_user_id,
        )


def external_user_signature(*, secret: str, external_user_id: str) -> str:
    """What the bot owner's backend computes: hex HMAC-SHA256(bot signing secret, external_user_id)."""
    return hmac.new(secret.encode(), external_user_id.encode(), hashlib.sha256).hexdigest()


def external_user_signature_check(
    *, secret: str | None, external_user_id: str, signature: str | None
) -> None:
    if not secret or not signature:
        raise ApiError(ErrorCode.INVALID_EXTERNAL_USER_SIGNATURE)
    expected = external_user_signature(secret=secret, external_user_id=external_user_id)
    if not hmac.compare_digest(expected, signature.strip().lower()):
        raise ApiError(ErrorCode.INVALID_EXTERNAL_USER_SIGNATURE)


def visitor_session_issue(*, session: VisitorSession) -> str:
    payload = {
        "c": str(session.conversation_id),
        "b": str(session.bot_id),
        "w": str(session.workspace_id),
        "v": session.visitor_id,
        "x": session.external_user_id,
    }
    return signing.dumps(payload, salt=_SESSION_SALT, compress=True)


def visitor_session_read(*, token: str, principal: Principal) -> VisitorSession:
    """The session a token proves, if it was issued by us, is fresh and fits this principal."""
    try:
        payload = signing.loads(
            token, salt=_SESSION_SALT, max_age=settings.API_VISITOR_SESSION_MAX_AGE
        )
        session = VisitorSession(
            conversation_id=uuid.UUID(payload["c"]),
            bot_id=uuid.UUID(payload["b"]),
            workspace_id=uuid.UUID(payload["w"]),
            visitor_id=str(payload["v"]),
            external_user_id=payload.get("x"),
        )
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        raise ApiError(ErrorCode.INVALID_SESSION) from None
    if not principal.may_use_bot(bot_id=session.bot_id, workspace_id=session.workspace_id):
        raise ApiError(ErrorCode.INVALID_SESSION)
    if principal.external_user_id and session.external_user_id != principal.external_user_id:
        raise ApiError(ErrorCode.INVALID_SESSION)
    return session


def request_principal(request: Any) -> Principal:
    """The caller of an API request: the Principal api.authentication put in ``request.auth``
    (DRF types it as a token; an unauthenticated request never reaches a view that asks)."""
    principal = request.auth
    if not isinstance(principal, Principal):
        raise ApiError(ErrorCode.AUTHENTICATION_REQUIRED)
    return principal
