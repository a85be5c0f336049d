"""Rate limits per API key and per visitor: a sliding-window log in Redis, one atomic Lua call per hit.

Each bucket is a sorted set of request timestamps (Redis server time, so every web process
shares one clock). A hit that would exceed the limit is not recorded, and the answer says
when the oldest counted request leaves the window: that is the 429's Retry-After.
"""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass
from functools import lru_cache

from django.conf import settings
from redis.commands.core import Script
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from api.principal import Principal
from streams.redis_gateway import redis_sync

_SLIDING_WINDOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  return {1, 0}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {0, tonumber(oldest[2]) + window - now}
"""


@dataclass(frozen=True)
class RateDecision:
    allowed: bool
    retry_after_seconds: float


@lru_cache(maxsize=1)
def _script() -> Script:
    return redis_sync().register_script(_SLIDING_WINDOW)


def rate_limit_hit(*, bucket: str, limit: int, window_seconds: int) -> RateDecision:
    allowed, wait_ms = _script()(
        keys=[f"parley:rl:{bucket}"], args=[limit, window_seconds * 1000, uuid.uuid4().hex]
    )
    return RateDecision(allowed=bool(allowed), retry_after_seconds=max(0.0, int(wait_ms) / 1000))


class _PrincipalThrottle(BaseThrottle):
    """DRF glue: which bucket a request counts against, and its limit from settings."""

    retry_after: float | None = None

    def bucket(self, principal: Principal, request: Request) -> str | None:
        raise NotImplementedError

    def limit(self) -> tuple[int, int]:
        raise NotImplementedError

    def allow_request(self, request: Request, view: object) -> bool:
        principal = request.auth
        if not isinstance(principal, Principal):
            return True
        bucket = self.bucket(principal, request)
        limit, window = self.limit()
        if bucket is None or limit <= 0:
            return True
        decision = rate_limit_hit(bucket=bucket, limit=limit, window_seconds=window)
        self.retry_after = decision.retry_after_seconds
        return decision.allowed

    def wait(self) -> float | None:
        return math.ceil(self.retry_after) if self.retry_after else None


class KeyRateThrottle(_PrincipalThrottle):
    def bucket(self, principal: Principal, request: Request) -> str | None:
        return f"key:{principal.key_id}"

    def limit(self) -> tuple[int, int]:
        return settings.API_RATE_LIMIT_KEY_REQUESTS, settings.API_RATE_LIMIT_KEY_WINDOW_SECONDS


class VisitorRateThrottle(_PrincipalThrottle):
    """Counts a visitor across a key's traffic; an anonymous widget visitor counts by client address."""

    def bucket(self, principal: Principal, request: Request) -> str | None:
        identity = principal.visitor_identity
        if identity is None and principal.origin is not None:
            identity = f"ip:{request.META.get('REMOTE_ADDR', '')}"
        return f"visitor:{principal.key_id}:{identity}" if identity else None

    def limit(self) -> tuple[int, int]:
        return (
            settings.API_RATE_LIMIT_VISITOR_REQUESTS,
            settings.API_RATE_LIMIT_VISITOR_WINDOW_SECONDS,
        )
