"""The API's error vocabulary: stable codes, their HTTP status and default message, and ApiError.

Every error under /api/ reaches the client as {"code", "message", "extra"}; the code is the
stable part clients switch on, the message is for humans and may change.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from rest_framework.exceptions import APIException, ErrorDetail

from core.errors import ErrorKind, ParleyError


class ErrorCode(StrEnum):
    INVALID_REQUEST = "invalid_request"
    MALFORMED_JSON = "malformed_json"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
    PAYLOAD_TOO_LARGE = "payload_too_large"
    AUTHENTICATION_REQUIRED = "authentication_required"
    AUTHENTICATION_FAILED = "authentication_failed"
    ORIGIN_NOT_ALLOWED = "origin_not_allowed"
    INVALID_EXTERNAL_USER_SIGNATURE = "invalid_external_user_signature"
    INVALID_SESSION = "invalid_session"
    PERMISSION_DENIED = "permission_denied"
    INSUFFICIENT_SCOPE = "insufficient_scope"
    NOT_FOUND = "not_found"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    NOT_ACCEPTABLE = "not_acceptable"
    CONFLICT = "conflict"
    RATE_LIMITED = "rate_limited"
    STREAM_EXPIRED = "stream_expired"
    SERVICE_UNAVAILABLE = "service_unavailable"
    INTERNAL_ERROR = "internal_error"


@dataclass(frozen=True)
class ErrorSpec:
    status: int
    message: str


REGISTRY: dict[ErrorCode, ErrorSpec] = {
    ErrorCode.INVALID_REQUEST: ErrorSpec(400, "The request is invalid."),
    ErrorCode.MALFORMED_JSON: ErrorSpec(400, "The request body is not valid JSON."),
    ErrorCode.UNSUPPORTED_MEDIA_TYPE: ErrorSpec(415, "Send the body as application/json."),
    ErrorCode.PAYLOAD_TOO_LARGE: ErrorSpec(413, "The request body is too large."),
    ErrorCode.AUTHENTICATION_REQUIRED: ErrorSpec(401, "An API key is required."),
    # One message for unknown, revoked and expired keys: nothing leaks.
    ErrorCode.AUTHENTICATION_FAILED: ErrorSpec(401, "Invalid API key."),
    # A valid widget key used from a page it does not allow. Widget keys are publishable (they sit in
    # every page's source), so saying the key is valid reveals nothing; the message names the origin
    # and the key's admin page, as the one thing to fix (issue 26: "Invalid API key." sent a new user
    # looking at the wrong thing).
    ErrorCode.ORIGIN_NOT_ALLOWED: ErrorSpec(401, "This widget key does not allow this origin."),
    ErrorCode.INVALID_EXTERNAL_USER_SIGNATURE: ErrorSpec(
        401, "The external user signature is invalid."
    ),
    ErrorCode.INVALID_SESSION: ErrorSpec(401, "The visitor session is invalid or expired."),
    ErrorCode.PERMISSION_DENIED: ErrorSpec(403, "You may not do this."),
    ErrorCode.INSUFFICIENT_SCOPE: ErrorSpec(
        403, "This API key lacks the scope for this operation."
    ),
    ErrorCode.NOT_FOUND: ErrorSpec(404, "Not found."),
    ErrorCode.METHOD_NOT_ALLOWED: ErrorSpec(405, "This method is not allowed here."),
    ErrorCode.NOT_ACCEPTABLE: ErrorSpec(406, "The requested response format is not available."),
    ErrorCode.CONFLICT: ErrorSpec(409, "The conversation's current state does not allow this."),
    ErrorCode.RATE_LIMITED: ErrorSpec(429, "Too many requests; retry later."),
    ErrorCode.STREAM_EXPIRED: ErrorSpec(410, "This event stream has expired."),
    ErrorCode.SERVICE_UNAVAILABLE: ErrorSpec(503, "A service Parley needs failed; retry later."),
    ErrorCode.INTERNAL_ERROR: ErrorSpec(500, "An internal error occurred."),
}

# What a service's error (core.errors.ParleyError) becomes here, by its kind; its own code goes
# in extra.reason.
KIND_CODES: dict[ErrorKind, ErrorCode] = {
    ErrorKind.INVALID: ErrorCode.INVALID_REQUEST,
    ErrorKind.FORBIDDEN: ErrorCode.PERMISSION_DENIED,
    ErrorKind.NOT_FOUND: ErrorCode.NOT_FOUND,
    ErrorKind.CONFLICT: ErrorCode.CONFLICT,
    ErrorKind.UNAVAILABLE: ErrorCode.SERVICE_UNAVAILABLE,
    ErrorKind.INTERNAL: ErrorCode.INTERNAL_ERROR,
}

# What a bare HTTP status (a Django 404 page, a 405 from a plain view) maps to.
STATUS_CODES: dict[int, ErrorCode] = {
    400: ErrorCode.INVALID_REQUEST,
    401: ErrorCode.AUTHENTICATION_REQUIRED,
    403: ErrorCode.PERMISSION_DENIED,
    404: ErrorCode.NOT_FOUND,
    405: ErrorCode.METHOD_NOT_ALLOWED,
    406: ErrorCode.NOT_ACCEPTABLE,
    409: ErrorCode.CONFLICT,
    410: ErrorCode.STREAM_EXPIRED,
    413: ErrorCode.PAYLOAD_TOO_LARGE,
    415: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    429: ErrorCode.RATE_LIMITED,
    503: ErrorCode.SERVICE_UNAVAILABLE,
}


def error_body(
    code: ErrorCode, message: str | None = None, extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    return {"code": str(code), "message": message or REGISTRY[code].message, "extra": extra or {}}


def _status_kind(status: int) -> ErrorKind:
    kinds = {401: ErrorKind.FORBIDDEN, 403: ErrorKind.FORBIDDEN, 404: ErrorKind.NOT_FOUND}
    if status >= 500:
        return ErrorKind.INTERNAL
    return kinds.get(status, ErrorKind.CONFLICT if status == 409 else ErrorKind.INVALID)


def parley_error_parts(exc: ParleyError) -> tuple[ErrorCode, str | None, dict[str, Any]]:
    """The one mapping of an error to the API's vocabulary: an ApiError as it is; a service's
    error by its kind, its own code in ``extra.reason`` (an internal one says nothing more)."""
    if isinstance(exc, ApiError):
        return ErrorCode(exc.code), exc.message, exc.extra
    code = KIND_CODES[exc.kind]
    if code is ErrorCode.INTERNAL_ERROR:
        return code, None, {}
    if exc.code == code:  # the service speaks the API's word already
        return code, exc.message, exc.extra
    return code, exc.message, {**exc.extra, "reason": exc.code}


def error_code_for_status(status: int) -> ErrorCode:
    return STATUS_CODES.get(
        status, ErrorCode.INTERNAL_ERROR if status >= 500 else ErrorCode.INVALID_REQUEST
    )


class ApiError(ParleyError, APIException):
    """An error in the API's own vocabulary (the edge's checks: keys, scopes, access, sessions);
    the exception handler shapes it. Services below the API raise their own ParleyError."""

    def __init__(
        self,
        code: ErrorCode,
        message: str | None = None,
        *,
        extra: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        spec = REGISTRY[code]
        super().__init__(message or spec.message, code=str(code), extra=extra)
        self.code = code
        self.kind = _status_kind(spec.status)
        self.status_code = spec.status
        self.headers = headers or {}
        self.detail = ErrorDetail(self.message, code=str(code))  # what DRF's own code reads
