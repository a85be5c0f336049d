"""Who is acting and from where, for the entries written while a request is served: the middleware sets
it, AuditEntryManager.create reads it. Outside a request (tasks, commands) entries say "system"."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse

_request: ContextVar[HttpRequest | None] = ContextVar("audit_request", default=None)

SYSTEM = "system"


def client_address(request: HttpRequest) -> str | None:
    """The caller's address: REMOTE_ADDR, or behind a proxy that appends X-Forwarded-For (one the
    operator names with PARLEY_AUDIT_FORWARDED_FOR), that header's last address, the one the proxy
    itself added; earlier ones are whatever the client sent and are not believed."""
    address = request.META.get("REMOTE_ADDR") or ""
    if settings.PARLEY_AUDIT_FORWARDED_FOR:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        last = forwarded.rsplit(",", 1)[-1].strip()
        address = last or address
    try:
        return str(ipaddress.ip_address(address))
    except ValueError:
        return None


def request_actor(request: HttpRequest) -> dict[str, Any]:
    """The API key (DRF puts the Principal on the request as `auth` once it authenticates) or the
    signed-in user making the request; read when an entry is written, so after authentication."""
    principal = getattr(request, "auth", None)
    key_id = getattr(principal, "key_id", None)
    if key_id is not None:
        kind = getattr(principal, "kind", "api")
        return {"actor_id": None, "actor_key_id": key_id, "actor_label": f"{kind} key {key_id}"}
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return {"actor_id": user.pk, "actor_key_id": None, "actor_label": user.get_username()}
    return {"actor_id": None, "actor_key_id": None, "actor_label": "anonymous"}


def audit_context_fill(fields: dict[str, Any]) -> dict[str, Any]:
    """An entry's fields with who and from where added from the request being served, unless given."""
    request = _request.get()
    filled = dict(fields)
    if "actor_label" not in filled and "actor" not in filled:
        if request is None:
            filled.update(actor_id=None, actor_key_id=None, actor_label=SYSTEM)
        else:
            filled.update(request_actor(request))
    if request is not None:
        filled.setdefault("remote_addr", client_address(request))
    filled.pop("actor_email", None)  # who is actor_label; an e-mail address is not copied around
    return filled


class AuditContextMiddleware:
    """Makes the request the audit's context while it is served (after AuthenticationMiddleware)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        token = _request.set(request)
        try:
            return self.get_response(request)
        finally:
            _request.reset(token)
