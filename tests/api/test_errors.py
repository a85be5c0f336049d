"""Every error under /api/ has the {"code", "message", "extra"} shape, whatever produced it."""

from __future__ import annotations

import uuid

import pytest
from django.test import Client, override_settings

from tests.api.factories import bearer, server_key_make, workspace_make

pytestmark = pytest.mark.django_db


@pytest.fixture
def key() -> str:
    return server_key_make(workspace_make())[0]


def _error(response, status: int, code: str) -> dict:  # type: ignore[no-untyped-def]
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"code", "message", "extra"}
    assert body["code"] == code
    assert body["message"]
    return body


def test_malformed_json(key: str) -> None:
    response = Client().post(
        "/api/v1/sessions", '{"bot_id": ', content_type="application/json", **bearer(key)
    )
    _error(response, 400, "malformed_json")


def test_wrong_types_name_the_field(key: str) -> None:
    response = Client().post(
        "/api/v1/sessions", {"bot_id": 12}, content_type="application/json", **bearer(key)
    )
    body = _error(response, 400, "invalid_request")
    assert list(body["extra"]["fields"]) == ["bot_id"]
    missing = Client().post("/api/v1/sessions", {}, content_type="application/json", **bearer(key))
    assert _error(missing, 400, "invalid_request")["extra"]["fields"] == {
        "bot_id": ["This field is required with a server key."]
    }


def test_a_body_that_is_not_json(key: str) -> None:
    response = Client().post(
        "/api/v1/sessions", "bot_id=1", content_type="text/plain", **bearer(key)
    )
    _error(response, 415, "unsupported_media_type")


@override_settings(API_MAX_REQUEST_BODY_BYTES=1024)
def test_oversized_body(key: str) -> None:
    body = '{"bot_id": "' + "x" * 2000 + '"}'
    response = Client().post(
        "/api/v1/sessions", body, content_type="application/json", **bearer(key)
    )
    assert _error(response, 413, "payload_too_large")["extra"] == {"max_bytes": 1024}


def test_unknown_ids_and_paths(key: str) -> None:
    client = Client()
    unknown_bot = client.post(
        "/api/v1/sessions",
        {"bot_id": str(uuid.uuid4())},
        content_type="application/json",
        **bearer(key),
    )
    _error(unknown_bot, 404, "not_found")
    _error(
        client.get(f"/api/v1/streams/{uuid.uuid4().hex}/events", **bearer(key)), 404, "not_found"
    )
    _error(client.get("/api/v1/streams/not-a-stream/events", **bearer(key)), 404, "not_found")
    _error(client.get("/api/v1/no-such-endpoint", **bearer(key)), 404, "not_found")
    _error(client.get("/api/nothing-here"), 404, "not_found")


@override_settings(DEBUG=True)
def test_unknown_paths_are_json_even_in_debug(key: str) -> None:
    _error(Client().get("/api/v1/no-such-endpoint", **bearer(key)), 404, "not_found")


def test_method_not_allowed(key: str) -> None:
    response = Client().get("/api/v1/sessions", **bearer(key))
    _error(response, 405, "method_not_allowed")
    assert "POST" in response["Allow"]


@override_settings(ROOT_URLCONF="tests.api.urls_boom")
@pytest.mark.parametrize("path", ["/api/v1/test-boom", "/api/v1/test-plain-boom"])
@pytest.mark.parametrize("debug", [False, True])
def test_unhandled_errors_are_json_500s(key: str, path: str, debug: bool) -> None:
    with override_settings(DEBUG=debug):
        response = Client(raise_request_exception=False).get(path, **bearer(key))
    body = _error(response, 500, "internal_error")
    assert "kaboom" not in response.content.decode()
    assert body["extra"] == {}


def test_pages_outside_the_api_keep_their_html() -> None:
    response = Client().get("/definitely-not-here")
    assert response.status_code == 404
    assert not response["Content-Type"].startswith("application/json")
