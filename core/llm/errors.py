"""The OpenAI-compatible gateway's error vocabulary (chat and embeddings): stable codes, transient or permanent."""

from __future__ import annotations

from core.errors import ErrorKind, ParleyError

# Transient: worth retrying with backoff. Permanent: retrying cannot help.
LLM_TIMEOUT = "llm_timeout"
LLM_CONNECTION_ERROR = "llm_connection_error"
LLM_RATE_LIMITED = "llm_rate_limited"
LLM_SERVER_ERROR = "llm_server_error"
LLM_STREAM_INTERRUPTED = "llm_stream_interrupted"
LLM_AUTH_FAILED = "llm_auth_failed"
LLM_FORBIDDEN = "llm_forbidden"
LLM_BAD_REQUEST = "llm_bad_request"
LLM_NOT_FOUND = "llm_not_found"
LLM_REJECTED = "llm_rejected"
LLM_NOT_CONFIGURED = "llm_not_configured"

TRANSIENT_CODES = frozenset({LLM_TIMEOUT, LLM_CONNECTION_ERROR, LLM_RATE_LIMITED, LLM_SERVER_ERROR})


class LLMError(ParleyError):
    """A failed LLM call, after the gateway's retries. `code` is stable; `attempts` counts the calls made."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        status_code: int | None = None,
        attempts: int = 1,
        model: str = "",
    ) -> None:
        super().__init__(message, code=code, extra={"attempts": attempts, "model": model})
        self.kind = ErrorKind.UNAVAILABLE if code in TRANSIENT_CODES else ErrorKind.INTERNAL
        self.status_code = status_code
        self.attempts = attempts
        self.model = model

    @property
    def transient(self) -> bool:
        return self.code in TRANSIENT_CODES

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"
