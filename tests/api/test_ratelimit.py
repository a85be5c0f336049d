"""Rate limits per key and per visitor, in Redis, answered with 429 and Retry-After."""

from __future__ import annotations

import uuid

import pytest
from django.test import Client, override_settings

from api.ratelimit import rate_limit_hit
from tests.api.factories import bearer, bot_make, server_key_make, widget_key_make, workspace_make

pytestmark = pytest.mark.django_db


@override_settings(API_RATE_LIMIT_KEY_REQUESTS=3, API_RATE_LIMIT_KEY_WINDOW_SECONDS=30)
def test_a_key_over_its_limit_gets_429_with_retry_after() -> None:
    raw, _ = server_key_make(workspace_make())
    other_raw, _ = server_key_make(workspace_make())
    client = Client()
    statuses = [client.get("/api/v1/me", **bearer(raw)).status_code for _ in range(3)]
    assert statuses == [200, 200, 200]
    limited = client.get("/api/v1/me", **bearer(raw))
    assert limited.status_code == 429
    body = limited.json()
    assert body["code"] == "rate_limited"
    retry_after = int(limited["Retry-After"])
    assert 1 <= retry_after <= 30
    assert body["extra"]["retry_after"] == retry_after
    assert (
        client.get("/api/v1/me", **bearer(other_raw)).status_code == 200
    )  # another key has its own budget


@override_settings(API_RATE_LIMIT_VISITOR_REQUESTS=2, API_RATE_LIMIT_VISITOR_WINDOW_SECONDS=60)
def test_each_external_user_has_its_own_budget() -> None:
    raw, _ = server_key_make(workspace_make())
    client = Client()

    def me(user: str) -> int:
        return client.get("/api/v1/me", HTTP_X_PARLEY_EXTERNAL_USER=user, **bearer(raw)).status_code

    assert [me("ann"), me("ann"), me("ann")] == [200, 200, 429]
    assert me("ben") == 200


@override_settings(API_RATE_LIMIT_VISITOR_REQUESTS=1, API_RATE_LIMIT_VISITOR_WINDOW_SECONDS=60)
def test_a_limited_widget_answer_still_carries_cors() -> None:
    key = widget_key_make(bot_make())
    client = Client()
    headers = {"HTTP_ORIGIN": "https://shop.example", **bearer(key.key)}
    assert client.get("/api/v1/me", **headers).status_code == 200
    limited = client.get("/api/v1/me", **headers)
    assert limited.status_code == 429
    assert (
        limited["Access-Control-Allow-Origin"] == "https://shop.example"
    )  # the widget can read the 429
    assert "Retry-After" in limited["Access-Control-Expose-Headers"]


def test_the_window_slides() -> None:
    bucket = f"test:{uuid.uuid4().hex}"
    first = rate_limit_hit(bucket=bucket, limit=1, window_seconds=1)
    second = rate_limit_hit(bucket=bucket, limit=1, window_seconds=1)
    assert first.allowed and not second.allowed
    assert 0 < second.retry_after_seconds <= 1
