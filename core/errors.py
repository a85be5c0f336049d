"""Parley's one error vocabulary: every error a service raises is a `ParleyError`.

An error has a stable `code` (what callers switch on; a class default or one per instance), a
`message` for humans (may change), `extra` (JSON-able details) and a `kind`, what it means to a
caller whatever the app. The edges map the kind to HTTP once each: the API's exception handler
(`api.exceptions`, which keeps its own codes and puts the service's in `extra.reason`) and the agent
console (`agent.views`). Nothing else turns a service error into a status.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any


class ErrorKind(StrEnum):
    INVALID = "invalid"  # the input cannot be used, as it is
    FORBIDDEN = "forbidden"  # the caller may not do this
    NOT_FOUND = "not_found"
    CONFLICT = "conflict"  # the current state does not allow it (it may later)
    UNAVAILABLE = "unavailable"  # a dependency failed; a retry may succeed
    INTERNAL = "internal"


# The one table from kinds to HTTP statuses, for both HTTP edges.
HTTP_STATUS: dict[ErrorKind, int] = {
    ErrorKind.INVALID: 400,
    ErrorKind.FORBIDDEN: 403,
    ErrorKind.NOT_FOUND: 404,
    ErrorKind.CONFLICT: 409,
    ErrorKind.UNAVAILABLE: 503,
    ErrorKind.INTERNAL: 500,
}


class ParleyError(Exception):
    """The base of every error a Parley service raises on purpose."""

    code: str = "internal_error"
    kind: ErrorKind = ErrorKind.INTERNAL

    def __init__(
        self, message: str = "", *, code: str | None = None, extra: Mapping[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.message = message or self.code
        self.extra: dict[str, Any] = dict(extra or {})

    @property
    def http_status(self) -> int:
        return HTTP_STATUS[self.kind]

    def as_json(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "extra": self.extra}
