"""Retry timing of the OpenAI-compatible gateway: exponential backoff with jitter, and Retry-After honoured."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from email.utils import parsedate_to_datetime

from core.llm.errors import LLMError


def retry_delay(
    exc: Exception, error: LLMError, failures: int, *, max_retries: int, base: float, longest: float
) -> float | None:
    """Seconds to wait before the next attempt, or None to give up now."""
    if not error.transient or failures > max_retries:
        return None
    retry_after = _retry_after(exc)
    if retry_after is not None:
        # A server asking for longer than we are willing to wait: fail now, the caller falls back.
        return None if retry_after > longest else retry_after + random.uniform(0, 0.1)  # noqa: S311
    ceiling = min(longest, base * 2 ** (failures - 1))
    return random.uniform(ceiling / 2, ceiling)  # noqa: S311 - jitter, not cryptography


def _retry_after(exc: Exception, now: Callable[[], float] = time.time) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if not headers:
        return None
    if (milliseconds := headers.get("retry-after-ms")) is not None:
        try:
            return max(0.0, float(milliseconds) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - now())
    except (TypeError, ValueError):
        return None
