"""The API's error vocabulary: stable codes, their HTTP status and default message, and ApiError.

Every error under /api/ reaches the client as {"code", "message", "extra"}; the code is the
stable part clients switch on, the message is for humans and may change.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from rest_framework.exceptions import APIException


class ErrorCode(StrEnum):
    INVALID_REQUEST = "invalid_request"
    MALFORMED_JSON = "malformed_json"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
    PAYLOAD_TOO_LARGE = "payload_too_large"
    AUTHENTICATION_REQUIRED = "authentication_required"
    AUTHENTICATION_FAILED = "authentication_failed"
    INVALID_EXTERNAL_USER_SIGNATURE = "invalid_external_user_signature"
    INVALID_SESSION = "invalid_session"
    PERMISSION_DENIED = "permission_denied"
    INSUFFICIENT_SCOPE = "insufficient_scope"
    NOT_FOUND = "not_found"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    NOT_ACCEPTABLE = "not_acceptable"
    RATE_LIMITED = "rate_limited"
    STREAM_EXPIRED = "stream_expired"
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
    # One message for unknown, revoked, expired keys and disallowed origins: nothing leaks.
    ErrorCode.AUTHENTICATION_FAILED: ErrorSpec(401, "Invalid API key."),
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
    ErrorCode.RATE_LIMITED: ErrorSpec(429, "Too many requests; retry later."),
    ErrorCode.STREAM_EXPIRED: ErrorSpec(410, "This event stream has expired."),
    ErrorCode.INTERNAL_ERROR: ErrorSpec(500, "An internal error occurred."),
}

# What a bare HTTP status (a Django 404 page, a 405 from a plain view) maps to.
STATUS_CODES: dict[int, ErrorCode] = {
    400: ErrorCode.INVALID_REQUEST,
    401: ErrorCode.AUTHENTICATION_REQUIRED,
    403: ErrorCode.PERMISSION_DENIED,
    404: ErrorCode.NOT_FOUND,
    405: ErrorCode.METHOD_NOT_ALLOWED,
    406: ErrorCode.NOT_ACCEPTABLE,
    410: ErrorCode.STREAM_EXPIRED,
    413: ErrorCode.PAYLOAD_TOO_LARGE,
    415: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    429: ErrorCode.RATE_LIMITED,
}


def error_body(
    code: ErrorCode, message: str | None = None, extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    return {"code": str(code), "message": message or REGISTRY[code].message, "extra": extra or {}}


def error_code_for_status(status: int) -> ErrorCode:
    return STATUS_CODES.get(
        status, ErrorCode.INTERNAL_ERROR if status >= 500 else ErrorCode.INVALID_REQUEST
    )


class ApiError(APIException):
    """Raise from services, selectors and views; the exception handler shapes it."""

    def __init__(
        self,
        code: ErrorCode,
        message: str | None = None,
        *,
        extra: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        spec = REGISTRY[code]
        self.code = code
        self.status_code = spec.status
        self.message = message or spec.message
        self.extra = extra or {}
        self.headers = headers or {}
        super().__init__(detail=self.message, code=str(code))
