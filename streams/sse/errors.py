"""What goes wrong in a stream, in the vocabulary every error shares (core.errors): a bad resume
cursor is a `StreamError`; an exception inside a producer becomes the `error` event's data."""

from __future__ import annotations

from typing import Any

from core.errors import ErrorKind, ParleyError

INTERNAL_ERROR_BODY: dict[str, Any] = {
    "code": "internal_error",
    "message": "An internal error occurred.",
    "extra": {},
}
STREAM_EXPIRED_BODY: dict[str, Any] = {
    "code": "stream_expired",
    "message": "This event stream has expired.",
    "extra": {},
}

# A stream whose runner never started or stopped (its worker or the web process that queued it died):
# the client sends the message again, under the same client_message_id (streams.sse.supervision).
STREAM_INTERRUPTED_BODY: dict[str, Any] = {
    "code": "stream_interrupted",
    "message": "This answer was interrupted; send the message again.",
    "extra": {},
}


class StreamError(ParleyError):
    """A request about a stream that cannot be served as asked (a Last-Event-ID of another stream)."""

    code = "invalid_request"
    kind = ErrorKind.INVALID


def stream_error_body(error: BaseException) -> dict[str, Any]:
    """An `error` event's data: a ParleyError's own code, message and extra; anything else (and an
    internal ParleyError) says nothing more than internal_error."""
    if isinstance(error, ParleyError) and error.kind is not ErrorKind.INTERNAL:
        return {"code": str(error.code), "message": error.message, "extra": dict(error.extra)}
    return dict(INTERNAL_ERROR_BODY)
