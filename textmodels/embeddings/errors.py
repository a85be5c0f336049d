"""The embedding providers' one error, its transience read by ingestion's retries."""

from __future__ import annotations

from core.errors import ErrorKind, ParleyError


class EmbeddingError(ParleyError):
    """An embedding call failed; `transient` says whether a retry may succeed."""

    code = "embedding_failed"

    def __init__(self, message: str, *, transient: bool) -> None:
        super().__init__(message)
        self.transient = transient
        self.kind = ErrorKind.UNAVAILABLE if transient else ErrorKind.INTERNAL
