"""The API key cache (api.key_cache): a cached key stops working the moment it is revoked, edited or deleted."""

from __future__ import annotations

from datetime import timedelta

import pytest
import redis
from django.test import Client
from django.utils import timezone
from redis.backoff import NoBackoff
from redis.retry import Retry

from api import key_cache
from api.key_cache import api_key_cache_clear, api_key_cache_get, api_key_cache_put
from api.models import ServerApiKey
from api.principal import external_user_signature
from api.services import (
    bot_signing_secret_rotate,
    key_hash,
    server_api_key_revoke,
    widget_key_revoke,
)
from streams.redis_gateway import redis_sync
from tests.api.factories import (
    bearer,
    bot_make,
    server_key_make,
    signing_secret_make,
    widget_key_make,
    workspace_make,
)

pytestmark = pytest.mark.django_db
ORIGIN = "https://shop.example"


def _me(raw: str, origin: str | None = None, **headers: str) -> int:
    extra = {"HTTP_ORIGIN": origin} if origin else {}
    return Client().get("/api/v1/me", **bearer(raw), **extra, **headers).status_code


def _cached(raw: str) -> bool:
    return api_key_cache_get(digest=key_hash(raw)).entry is not None


def test_a_cached_server_key_stops_working_when_revoked() -> None:
    raw, key_id = server_key_make(workspace_make())
    assert _me(raw) == 200 and _cached(raw)
    server_api_key_revoke(key_id=key_id)
    assert not _cached(raw)
    assert _me(raw) == 401


def test_an_admin_edit_or_a_deletion_drops_the_cache() -> None:
    raw, key_id = server_key_make(workspace_make())
    assert _me(raw) == 200 and _cached(raw)
    key = ServerApiKey.objects.get(pk=key_id)
    key.expires_at = timezone.now() - timedelta(seconds=1)
    key.save()  # as the admin's change form does
    assert _me(raw) == 401
    other, other_id = server_key_make(workspace_make())
    assert _me(other) == 200 and _cached(other)
    ServerApiKey.objects.get(
        pk=other_id
    ).workspace.delete()  # the key goes with its workspace (a cascade)
    assert _me(other) == 401


def test_a_cached_key_past_its_expiry_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    raw, _ = server_key_make(workspace_make(), expires_at=timezone.now() + timedelta(minutes=5))
    assert _me(raw) == 200 and _cached(raw)
    later = timezone.now() + timedelta(minutes=6)
    monkeypatch.setattr("api.authentication.timezone.now", lambda: later)
    assert _me(raw) == 401


def test_a_cached_widget_key_follows_revocation_origins_and_secret_rotation() -> None:
    bot = bot_make()
    secret = signing_secret_make(bot).secret
    key = widget_key_make(bot, origins=(ORIGIN, "https://old.example"))
    signature = external_user_signature(secret=secret, external_user_id="alice")
    signed = {
        "HTTP_X_PARLEY_EXTERNAL_USER": "alice",
        "HTTP_X_PARLEY_EXTERNAL_USER_SIGNATURE": signature,
    }
    assert _me(key.key, ORIGIN, **signed) == 200 and _cached(key.key)
    assert _me(key.key, "https://evil.example") == 401  # a hit still checks the origin

    key.allowed_origins = [ORIGIN]
    key.save(update_fields=["allowed_origins"])  # the admin removes an origin
    assert _me(key.key, "https://old.example") == 401

    assert _me(key.key, ORIGIN, **signed) == 200
    bot_signing_secret_rotate(bot_id=bot.pk)
    assert _me(key.key, ORIGIN, **signed) == 401  # the old secret's signatures stop at once

    widget_key_revoke(key_id=key.pk)
    assert _me(key.key, ORIGIN) == 401


def test_a_widget_key_follows_its_bot_to_another_workspace() -> None:
    bot = bot_make()
    key = widget_key_make(bot, origins=(ORIGIN,))
    assert _me(key.key, ORIGIN) == 200 and _cached(key.key)
    bot.workspace = workspace_make()
    bot.save()  # the admin moves the bot
    response = Client().get("/api/v1/me", HTTP_ORIGIN=ORIGIN, **bearer(key.key))
    assert response.json()["workspace_id"] == str(bot.workspace_id)


def test_a_miss_racing_a_change_never_stores_the_stale_key() -> None:
    raw, _ = server_key_make(workspace_make())
    digest = key_hash(raw)
    miss = api_key_cache_get(digest=digest)
    assert miss.entry is None and miss.generation is not None
    api_key_cache_clear()  # a revocation commits between the miss's database read and its store
    entry = {"kind": "server", "key_id": "x", "workspace_id": "y", "scopes": [], "expires_at": None}
    api_key_cache_put(digest=digest, entry=entry, generation=miss.generation)
    assert api_key_cache_get(digest=digest).entry is None


def test_the_cache_holds_digests_and_expires(settings) -> None:  # type: ignore[no-untyped-def]
    raw, _ = server_key_make(workspace_make())
    assert _me(raw) == 200
    fields = redis_sync().hgetall(key_cache._HASH)
    assert key_hash(raw) in fields and not any(
        raw in name or raw in value for name, value in fields.items()
    )
    assert 0 < redis_sync().ttl(key_cache._HASH) <= settings.API_KEY_CACHE_SECONDS


def test_keys_are_read_from_the_database_when_redis_is_unreachable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    raw, key_id = server_key_make(workspace_make())
    # Nothing listens there, and the client gives up at the first refusal: redis-py's default retries
    # (three, with backoff) only add seconds before the same ConnectionError the cache falls back on.
    unreachable = redis.Redis(
        host="127.0.0.1", port=9, socket_connect_timeout=0.2, retry=Retry(NoBackoff(), 0)
    )
    monkeypatch.setattr(key_cache, "redis_sync", lambda: unreachable)
    assert _me(raw) == 200
    server_api_key_revoke(key_id=key_id)
    assert _me(raw) == 401
