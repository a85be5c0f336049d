"""The gateway's one retry policy: errors named by their cause, transient ones retried with backoff and jitter
(Retry-After honoured), permanent ones raised at once."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

import httpx
import openai

from core.llm import errors
from core.llm.backoff import retry_delay
from core.llm.errors import LLMError
from core.llm.types import Endpoint

logger = logging.getLogger(__name__)

T = TypeVar("T")

# The exceptions a call through the openai client (or its raw stream) raises when it fails.
CALL_ERRORS = (openai.APIError, httpx.HTTPError)


@dataclass(frozen=True)
class Retried(Generic[T]):
    """A call's value and the attempts it took."""

    value: T
    attempts: int


class Attempts:
    """The one retry loop, as an iterator of attempt numbers (1, 2, ...): the caller tries once per number
    and, on a failure, asks `failed` what it was, then either `retry` (which waits by the policy, or raises
    when retrying cannot help) or handles the error itself (the stream's plain-request retry and its
    interruption after the first tokens)."""

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        self.number = 0
        self.failures = 0  # the attempts the policy counted (a plain-request retry is not one)

    def __iter__(self) -> Iterator[int]:
        while True:
            self.number += 1
            yield self.number

    def failed(self, exc: Exception) -> LLMError:
        """The failure of the current attempt, named."""
        return classify(exc, self.endpoint, self.number)

    def retry(self, exc: Exception, error: LLMError) -> None:
        """Wait before the next attempt, or raise `error` when retrying cannot help."""
        self.failures += 1
        retry_wait(exc, error, self.failures, self.endpoint)


def call_retried(*, endpoint: Endpoint, call: Callable[[], T]) -> Retried[T]:
    """`call` until it succeeds, retried by the policy (`retry_wait`). Raises LLMError."""
    attempts = Attempts(endpoint)
    for attempt in attempts:
        try:
            return Retried(value=call(), attempts=attempt)
        except CALL_ERRORS as exc:
            attempts.retry(exc, attempts.failed(exc))
    raise AssertionError("unreachable: the attempts never end")


def retry_wait(exc: Exception, error: LLMError, failures: int, endpoint: Endpoint) -> None:
    """The one retry policy: sleep before the next attempt, or raise `error` when retrying cannot help."""
    delay = retry_delay(
        exc,
        error,
        failures,
        max_retries=endpoint.max_retries,
        base=endpoint.backoff_base,
        longest=endpoint.backoff_max,
    )
    if delay is None:
        raise error from exc
    logger.warning("%s call failed (%s), retry %d in %.2fs", endpoint.model, error, failures, delay)
    time.sleep(delay)


STATUS_CODES: dict[int, str] = {
    400: errors.LLM_BAD_REQUEST,
    401: errors.LLM_AUTH_FAILED,
    403: errors.LLM_FORBIDDEN,
    404: errors.LLM_NOT_FOUND,
    408: errors.LLM_TIMEOUT,
    409: errors.LLM_SERVER_ERROR,
    429: errors.LLM_RATE_LIMITED,
}


def classify(exc: Exception, endpoint: Endpoint, attempt: int) -> LLMError:
    status: int | None = None
    if isinstance(exc, openai.APITimeoutError | httpx.TimeoutException):
        code = errors.LLM_TIMEOUT
    elif isinstance(exc, openai.APIConnectionError | httpx.TransportError):
        code = errors.LLM_CONNECTION_ERROR
    elif isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        code = (
            errors.LLM_SERVER_ERROR
            if status >= 500
            else STATUS_CODES.get(status, errors.LLM_REJECTED)
        )
    else:  # an error event inside a stream
        code = errors.LLM_SERVER_ERROR
    message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    return LLMError(code, message, status_code=status, attempts=attempt, model=endpoint.model)


def interrupted(error: LLMError) -> LLMError:
    message = f"the stream broke after its first tokens: {error.message}"
    return LLMError(
        errors.LLM_STREAM_INTERRUPTED,
        message,
        status_code=error.status_code,
        attempts=error.attempts,
        model=error.model,
    )
