"""The one exception handler: every error under /api/ leaves as {"code", "message", "extra"}.

DRF calls ``api_exception_handler``; plain Django errors on /api/ paths (404 pages, 500s,
oversized bodies) go through ``error_response`` from the middleware and the URL handlers.
"""

from __future__ import annotations

import logging
import math
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.http import Http404, JsonResponse
from rest_framework import exceptions as drf
from rest_framework.views import set_rollback

from api.errors import REGISTRY, ApiError, ErrorCode, error_body, parley_error_parts
from core.errors import ParleyError

logger = logging.getLogger("api.errors")

_DRF_CODES: list[tuple[type[Exception], ErrorCode]] = [
    (drf.ParseError, ErrorCode.MALFORMED_JSON),
    (drf.ValidationError, ErrorCode.INVALID_REQUEST),
    (drf.UnsupportedMediaType, ErrorCode.UNSUPPORTED_MEDIA_TYPE),
    (drf.NotAuthenticated, ErrorCode.AUTHENTICATION_REQUIRED),
    (drf.AuthenticationFailed, ErrorCode.AUTHENTICATION_FAILED),
    (drf.PermissionDenied, ErrorCode.PERMISSION_DENIED),
    (drf.NotFound, ErrorCode.NOT_FOUND),
    (drf.MethodNotAllowed, ErrorCode.METHOD_NOT_ALLOWED),
    (drf.NotAcceptable, ErrorCode.NOT_ACCEPTABLE),
    (drf.Throttled, ErrorCode.RATE_LIMITED),
]


def error_response(
    code: ErrorCode,
    message: str | None = None,
    *,
    status: int | None = None,
    extra: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> JsonResponse:
    response = JsonResponse(
        error_body(code, message, extra), status=status or REGISTRY[code].status
    )
    for name, value in (headers or {}).items():
        response[name] = value
    if response.status_code == 401:
        response["WWW-Authenticate"] = 'Bearer realm="parley"'
    return response


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> JsonResponse:
    """A JsonResponse rather than a DRF Response: errors never depend on content negotiation."""
    set_rollback()
    if isinstance(exc, ParleyError):  # the API's own errors, and services' by their kind
        code, message, extra = parley_error_parts(exc)
        if code is ErrorCode.INTERNAL_ERROR:
            logger.error("Service error %s", exc.code, exc_info=exc)
        headers = exc.headers if isinstance(exc, ApiError) else None
        return error_response(code, message, extra=extra, headers=headers)
    if isinstance(exc, Http404):
        return error_response(ErrorCode.NOT_FOUND)
    if isinstance(exc, DjangoPermissionDenied):
        return error_response(ErrorCode.PERMISSION_DENIED)
    if isinstance(exc, RequestDataTooBig):
        return error_response(ErrorCode.PAYLOAD_TOO_LARGE)
    if isinstance(exc, drf.APIException):
        return _drf_error(exc)
    request = context.get("request")
    logger.error("Unhandled API error on %s", getattr(request, "path", "?"), exc_info=exc)
    return error_response(ErrorCode.INTERNAL_ERROR)


def _drf_error(exc: drf.APIException) -> JsonResponse:
    code = next((code for cls, code in _DRF_CODES if isinstance(exc, cls)), None)
    if code is None:
        code = ErrorCode.INTERNAL_ERROR if exc.status_code >= 500 else ErrorCode.INVALID_REQUEST
    extra: dict[str, Any] = {}
    headers: dict[str, str] = {}
    message: str | None = None
    if isinstance(exc, drf.ValidationError):
        detail = exc.detail
        extra["fields"] = detail if isinstance(detail, dict) else {"non_field_errors": detail}
    elif isinstance(exc, drf.ParseError):
        extra["detail"] = str(exc.detail)
    elif isinstance(exc, drf.Throttled):
        wait: float | None = getattr(exc, "wait", None)  # set by DRF, absent from its stubs
        retry_after = max(1, math.ceil(wait or 1))
        headers["Retry-After"] = str(retry_after)
        extra["retry_after"] = retry_after
    elif isinstance(exc, drf.MethodNotAllowed | drf.UnsupportedMediaType):
        message = str(exc.detail)
    return error_response(code, message, status=exc.status_code, extra=extra, headers=headers)
