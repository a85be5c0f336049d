"""CORS for widget keys: a browser origin is answered only when a widget key lists it.

Preflights carry no credentials, so they are answered for any origin that some active
widget key allows; the real response carries CORS headers only when the request was
authenticated by a widget key from that very origin (``Principal.origin``).
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse

from api.authentication import EXTERNAL_USER_HEADER, EXTERNAL_USER_SIGNATURE_HEADER, SESSION_HEADER
from api.models import WidgetKey
from api.principal import Principal, PrincipalKind
from api.services import origin_normalize

ALLOWED_METHODS = "GET, POST, OPTIONS"
ALLOWED_HEADERS = ", ".join(
    [
        "Authorization",
        "Content-Type",
        "Last-Event-ID",
        SESSION_HEADER,
        EXTERNAL_USER_HEADER,
        EXTERNAL_USER_SIGNATURE_HEADER,
    ]
)
EXPOSED_HEADERS = "Retry-After, X-Parley-Stream-Id"
PREFLIGHT_MAX_AGE = "600"


def widget_origin_known(*, origin: str) -> bool:
    try:
        normalized = origin_normalize(origin)
    except ValidationError:
        return False
    return WidgetKey.objects.filter(
        revoked_at__isnull=True, allowed_origins__contains=[normalized]
    ).exists()


def cors_is_preflight(request: HttpRequest) -> bool:
    return (
        request.method == "OPTIONS"
        and "Origin" in request.headers
        and "Access-Control-Request-Method" in request.headers
    )


def cors_preflight_response(request: HttpRequest) -> HttpResponse:
    response = HttpResponse(status=204)
    response["Vary"] = "Origin"
    origin = request.headers["Origin"]
    if widget_origin_known(origin=origin):
        response["Access-Control-Allow-Origin"] = origin
        response["Access-Control-Allow-Methods"] = ALLOWED_METHODS
        response["Access-Control-Allow-Headers"] = ALLOWED_HEADERS
        response["Access-Control-Max-Age"] = PREFLIGHT_MAX_AGE
    return response


def cors_decorate(request: HttpRequest, response: HttpResponse) -> None:
    """Adds CORS headers for the origin a widget key was verified against, and only for it."""
    principal = getattr(request, "auth", None)
    origin = request.headers.get("Origin")
    if origin:
        response["Vary"] = "Origin"
    if not (
        isinstance(principal, Principal)
        and principal.kind == PrincipalKind.WIDGET
        and principal.origin
    ):
        return
    if origin and origin_normalize_safe(origin) == principal.origin:
        response["Access-Control-Allow-Origin"] = origin
        response["Access-Control-Expose-Headers"] = EXPOSED_HEADERS


def origin_normalize_safe(origin: str) -> str | None:
    try:
        return origin_normalize(origin)
    except ValidationError:
        return None
