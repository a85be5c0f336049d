"""Ingestion's error vocabulary: a stable code and a readable reason, stored on the failed document."""

from __future__ import annotations

from core.errors import ErrorKind, ParleyError


class IngestError(ParleyError):
    """A permanent failure: retrying the same file gives the same result."""

    kind = ErrorKind.INVALID

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message, code=code)


class TransientIngestError(ParleyError):
    """A failure worth retrying later (database, network, rate limit)."""

    code = "ingest_transient"
    kind = ErrorKind.UNAVAILABLE
