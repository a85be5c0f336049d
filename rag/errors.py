"""Ingestion's error vocabulary: a stable code and a readable reason, stored on the failed document."""

from __future__ import annotations


class IngestError(Exception):
    """A permanent failure: retrying the same file gives the same result."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class TransientIngestError(Exception):
    """A failure worth retrying later (database, network, rate limit)."""
