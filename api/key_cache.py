"""A short-lived Redis cache of verified API keys: most requests authenticate without a database round trip.

The key look-up (a pooled connection's health check and one SELECT) was the largest step before a
streamed answer's first event (bench/api; docs/decisions/widget-keys-cors-and-rate-limits.md); a hit
costs one Redis round trip, which every API request makes anyway (rate limits, streams).

- Entries live in one Redis hash, a field per key: the sha256 of the presented key (never the key),
  whose value is what authentication needs (the key's ids and scopes, its expiry; for a widget key
  its allowed origins and its bot's signing secret). Expiry and origins are checked on every hit.
- **Any change to a key drops the whole cache**: a revocation, an admin edit, a deletion (cascades
  included: ``post_delete`` fires for them), a signing secret's rotation, a bot's save. The drop runs at once and
  again after the change commits, and bumps a generation: a miss stores its entry only if the
  generation is unchanged since before it read the database, so a revocation racing a miss can
  never leave the revoked key cached.
- The hash expires ``API_KEY_CACHE_SECONDS`` after it was created (0 turns the cache off). That bounds
  how long a change made behind Parley's back (raw SQL) goes unseen.
- The cache is an optimisation, never an authority: when Redis cannot be reached, keys are read
  from the database.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import redis
from django.conf import settings
from django.db import transaction
from django.db.models.signals import post_delete, post_save

from streams.redis_gateway import redis_sync

logger = logging.getLogger(__name__)

_HASH = "parley:api-keys"
_GENERATION = "parley:api-keys:generation"

# Store only if no change happened since the reader took the generation; the hash's TTL starts with
# its first entry, so every entry is dropped at most API_KEY_CACHE_SECONDS after the oldest was stored.
_STORE_IF_UNCHANGED = """
if (redis.call('GET', KEYS[1]) or '0') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
if redis.call('TTL', KEYS[2]) < 0 then redis.call('EXPIRE', KEYS[2], ARGV[4]) end
return 1
"""


@dataclass(frozen=True, slots=True)
class CachedKey:
    """A cache look-up's outcome: ``entry`` on a hit; on a miss, the ``generation`` to store with."""

    entry: dict[str, Any] | None
    generation: str | None


def api_key_entry(*, digest: str, read: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """A key's entry: cached, else ``read()`` from the database (which raises for a bad key) and cached."""
    cached = api_key_cache_get(digest=digest)
    if cached.entry is not None:
        return cached.entry
    entry = read()
    api_key_cache_put(digest=digest, entry=entry, generation=cached.generation)
    return entry


def api_key_cache_get(*, digest: str) -> CachedKey:
    """The cached entry of a key's sha256, or a miss (generation None: the cache is off or unreachable)."""
    if not settings.API_KEY_CACHE_SECONDS:
        return CachedKey(None, None)
    try:
        pipe = redis_sync().pipeline(transaction=False)
        pipe.hget(_HASH, digest)
        pipe.get(_GENERATION)
        raw, generation = pipe.execute()
    except redis.RedisError:
        logger.warning(
            "the API key cache is unreachable: reading keys from the database", exc_info=True
        )
        return CachedKey(None, None)
    if raw is not None:
        return CachedKey(json.loads(raw), None)
    return CachedKey(None, generation or "0")


def api_key_cache_put(*, digest: str, entry: dict[str, Any], generation: str | None) -> None:
    """Store a key read from the database, unless a key changed since the look-up took ``generation``."""
    if generation is None or not settings.API_KEY_CACHE_SECONDS:
        return
    try:
        redis_sync().eval(
            _STORE_IF_UNCHANGED,
            2,
            _GENERATION,
            _HASH,
            generation,
            digest,
            json.dumps(entry, separators=(",", ":")),
            settings.API_KEY_CACHE_SECONDS,
        )
    except redis.RedisError:
        logger.warning("could not cache an API key", exc_info=True)


def api_key_cache_clear() -> None:
    """Drop every cached key now and, inside a transaction, again once it commits (see the module's docstring)."""
    _clear()
    if transaction.get_connection().in_atomic_block:
        transaction.on_commit(_clear, robust=True)


def signals_connect() -> None:
    """Saving or deleting a key or a signing secret (the admin, cascades) drops the cache, and so does
    saving a bot (the admin may move it to another workspace, which a widget key's entry names).
    Queryset updates send no signal, so the services that update keys call ``api_key_cache_clear``."""
    from api.models import BotSigningSecret, ServerApiKey, WidgetKey
    from bots.models import Bot

    for model in (ServerApiKey, WidgetKey, BotSigningSecret):
        post_save.connect(
            _on_key_change, sender=model, dispatch_uid=f"api-key-cache-{model.__name__}-save"
        )
        post_delete.connect(
            _on_key_change, sender=model, dispatch_uid=f"api-key-cache-{model.__name__}-delete"
        )
    post_save.connect(_on_key_change, sender=Bot, dispatch_uid="api-key-cache-Bot-save")


def _on_key_change(**_: object) -> None:
    api_key_cache_clear()


def _clear() -> None:
    try:
        pipe = redis_sync().pipeline(transaction=True)
        pipe.incr(_GENERATION)
        pipe.delete(_HASH)
        pipe.execute()
    except redis.RedisError:
        # Cached keys then live out their TTL; say so loudly, since a revocation waits for it.
        logger.error(
            "could not drop the API key cache: changed keys keep working for up to %s s",
            settings.API_KEY_CACHE_SECONDS,
            exc_info=True,
        )
