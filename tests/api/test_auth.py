"""Server keys, widget keys with origins and CORS, signed external users, visitor sessions, scopes."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from api.models import ServerApiKey
from api.principal import external_user_signature
from api.services import server_api_key_revoke, widget_key_revoke
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


def test_a_server_key_authenticates_for_its_workspace() -> None:
    workspace = workspace_make()
    raw, _ = server_key_make(workspace)
    response = Client().get("/api/v1/me", **bearer(raw))
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["kind"] == "server"
    assert body["workspace_id"] == str(workspace.pk)
    assert body["bot_id"] is None
    assert "chat" in body["scopes"] and "documents:write" in body["scopes"]


def test_only_a_hash_of_the_server_key_is_stored() -> None:
    raw, key_id = server_key_make(workspace_make())
    row = ServerApiKey.objects.get(pk=key_id)
    assert raw.startswith(f"psk_{row.prefix}_")
    assert raw not in {row.secret_hash, row.prefix} and len(row.secret_hash) == 64
    assert server_api_key_revoke(key_id=key_id) is True
    assert (
        server_api_key_revoke(key_id=key_id) is False
    )  # conditional update: only the first call revokes


@pytest.mark.parametrize(
    "problem", ["revoked", "expired", "tampered", "unknown", "garbage", "missing"]
)
def test_bad_keys_are_refused_alike(problem: str) -> None:
    raw, key_id = server_key_make(workspace_make())
    if problem == "revoked":
        server_api_key_revoke(key_id=key_id)
    elif problem == "expired":
        ServerApiKey.objects.filter(pk=key_id).update(
            expires_at=timezone.now() - timedelta(seconds=1)
        )
    elif problem == "tampered":
        raw = raw[:-2] + ("AA" if not raw.endswith("AA") else "BB")
    elif problem == "unknown":
        raw, _ = f"psk_{'0' * 12}_{'x' * 43}", None
    elif problem == "garbage":
        raw = "hello"
    headers = {} if problem == "missing" else bearer(raw)
    response = Client().get("/api/v1/me", **headers)
    assert response.status_code == 401
    body = response.json()
    assert set(body) == {"code", "message", "extra"}
    expected = "authentication_required" if problem == "missing" else "authentication_failed"
    assert body["code"] == expected
    assert response["WWW-Authenticate"].startswith("Bearer")
    if problem != "missing":
        assert body["message"] == "Invalid API key."  # the same words whatever went wrong


def test_a_key_that_has_not_expired_yet_works() -> None:
    raw, _ = server_key_make(workspace_make(), expires_at=timezone.now() + timedelta(hours=1))
    assert Client().get("/api/v1/me", **bearer(raw)).status_code == 200


def test_a_key_without_the_scope_is_refused() -> None:
    workspace = workspace_make()
    bot = bot_make(workspace)
    raw, _ = server_key_make(workspace, scopes=("rag_search",))
    response = Client().post(
        "/api/v1/sessions", {"bot_id": str(bot.pk)}, content_type="application/json", **bearer(raw)
    )
    assert response.status_code == 403
    assert response.json()["code"] == "insufficient_scope"
    assert response.json()["extra"] == {"required_scope": "chat"}


def test_another_workspace_bot_and_a_missing_bot_look_the_same() -> None:
    mine, theirs = workspace_make(), workspace_make()
    their_bot = bot_make(theirs)
    raw, _ = server_key_make(mine)
    client = Client()
    answers = [
        client.post(
            "/api/v1/sessions",
            {"bot_id": str(bot_id)},
            content_type="application/json",
            **bearer(raw),
        )
        for bot_id in (their_bot.pk, uuid.uuid4())
    ]
    assert [a.status_code for a in answers] == [404, 404]
    assert (
        answers[0].json()
        == answers[1].json()
        == {"code": "not_found", "message": "Not found.", "extra": {}}
    )


def test_widget_key_from_an_allowed_origin_gets_cors_for_that_origin_only() -> None:
    bot = bot_make()
    key = widget_key_make(bot, origins=(ORIGIN, "http://localhost:3000"))
    response = Client().get("/api/v1/me", HTTP_ORIGIN=ORIGIN, **bearer(key.key))
    assert response.status_code == 200, response.content
    assert response.json()["kind"] == "widget"
    assert response.json()["bot_id"] == str(bot.pk)
    assert sorted(response.json()["scopes"]) == ["chat", "chunks:read"]
    assert response["Access-Control-Allow-Origin"] == ORIGIN
    assert "Origin" in response["Vary"]


@pytest.mark.parametrize(
    ("origin", "code"),
    [
        ("https://evil.example", "origin_not_allowed"),
        ("http://shop.example", "origin_not_allowed"),
        (None, "authentication_failed"),
    ],
)
def test_widget_key_from_another_origin_is_refused_without_cors(
    origin: str | None, code: str
) -> None:
    key = widget_key_make(bot_make())
    headers = {"HTTP_ORIGIN": origin} if origin else {}
    response = Client().get("/api/v1/me", **headers, **bearer(key.key))
    assert response.status_code == 401
    assert response.json()["code"] == code
    assert not response.has_header("Access-Control-Allow-Origin")


def test_a_refused_origin_is_named_with_the_keys_admin_page() -> None:
    key = widget_key_make(bot_make())
    response = Client().get("/api/v1/me", HTTP_ORIGIN="http://127.0.0.1:8124", **bearer(key.key))
    body = response.json()
    page = f"/admin/api/widgetkey/{key.pk}/change/"
    assert (response.status_code, body["code"]) == (401, "origin_not_allowed")
    assert "http://127.0.0.1:8124" in body["message"] and page in body["message"]
    assert body["extra"] == {"origin": "http://127.0.0.1:8124", "admin_page": page}
    unknown = Client().get("/api/v1/me", HTTP_ORIGIN=ORIGIN, **bearer("ppk_unknown"))
    assert unknown.json() == {
        "code": "authentication_failed",
        "message": "Invalid API key.",
        "extra": {},
    }


def test_preflight_is_answered_only_for_origins_a_widget_key_lists() -> None:
    widget_key_make(bot_make())
    client = Client()
    allowed = client.options(
        "/api/v1/sessions", HTTP_ORIGIN=ORIGIN, HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST"
    )
    assert allowed.status_code == 204
    assert allowed["Access-Control-Allow-Origin"] == ORIGIN
    assert "Authorization" in allowed["Access-Control-Allow-Headers"]
    assert "X-Parley-Session" in allowed["Access-Control-Allow-Headers"]
    refused = client.options(
        "/api/v1/sessions",
        HTTP_ORIGIN="https://evil.example",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
    )
    assert not refused.has_header("Access-Control-Allow-Origin")


def test_a_revoked_widget_key_is_refused() -> None:
    key = widget_key_make(bot_make())
    widget_key_revoke(key_id=key.pk)
    response = Client().get("/api/v1/me", HTTP_ORIGIN=ORIGIN, **bearer(key.key))
    assert response.status_code == 401


def test_widget_external_user_needs_the_bots_hmac_signature() -> None:
    bot = bot_make()
    other_bot = bot_make(bot.workspace, name="Other")
    secret = signing_secret_make(bot).secret
    other_secret = signing_secret_make(other_bot).secret
    key = widget_key_make(bot)
    client = Client()

    def me(user: str, signature: str | None) -> dict:
        headers = {"HTTP_ORIGIN": ORIGIN, "HTTP_X_PARLEY_EXTERNAL_USER": user, **bearer(key.key)}
        if signature is not None:
            headers["HTTP_X_PARLEY_EXTERNAL_USER_SIGNATURE"] = signature
        response = client.get("/api/v1/me", **headers)
        return {"status": response.status_code, **response.json()}

    good = me("alice", external_user_signature(secret=secret, external_user_id="alice"))
    assert good["status"] == 200 and good["external_user_id"] == "alice"
    forged = [
        me(
            "bob", external_user_signature(secret=secret, external_user_id="alice")
        ),  # alice's signature, bob's id
        me(
            "alice", external_user_signature(secret=other_secret, external_user_id="alice")
        ),  # another bot's secret
        me("alice", "0" * 64),
        me("alice", None),
    ]
    assert all(
        f["status"] == 401 and f["code"] == "invalid_external_user_signature" for f in forged
    ), forged


def test_server_key_may_name_an_external_user_without_signature() -> None:
    raw, _ = server_key_make(workspace_make())
    response = Client().get("/api/v1/me", HTTP_X_PARLEY_EXTERNAL_USER="user-42", **bearer(raw))
    assert response.json()["external_user_id"] == "user-42"


def test_visitor_session_is_bound_to_its_conversation_bot_and_external_user() -> None:
    bot = bot_make()
    key = widget_key_make(bot)
    client = Client()
    started = client.post(
        "/api/v1/sessions",
        {},
        content_type="application/json",
        HTTP_ORIGIN=ORIGIN,
        **bearer(key.key),
    )
    assert started.status_code == 201, started.content
    session = started.json()
    assert session["bot_id"] == str(bot.pk)
    me = client.get(
        "/api/v1/me",
        HTTP_ORIGIN=ORIGIN,
        HTTP_X_PARLEY_SESSION=session["session_token"],
        **bearer(key.key),
    ).json()
    assert me["conversation_id"] == session["conversation_id"]

    other_key = widget_key_make(bot_make(bot.workspace, name="Another"))
    foreign = client.get(
        "/api/v1/me",
        HTTP_ORIGIN=ORIGIN,
        HTTP_X_PARLEY_SESSION=session["session_token"],
        **bearer(other_key.key),
    )
    assert foreign.status_code == 401 and foreign.json()["code"] == "invalid_session"
    tampered = client.get(
        "/api/v1/me",
        HTTP_ORIGIN=ORIGIN,
        HTTP_X_PARLEY_SESSION=session["session_token"][:-3] + "abc",
        **bearer(key.key),
    )
    assert tampered.status_code == 401 and tampered.json()["code"] == "invalid_session"


def test_a_widget_cannot_choose_its_visitor_id() -> None:
    key = widget_key_make(bot_make())
    started = Client().post(
        "/api/v1/sessions",
        {"visitor_id": "someone-else"},
        content_type="application/json",
        HTTP_ORIGIN=ORIGIN,
        **bearer(key.key),
    )
    assert started.status_code == 201
    assert started.json()["visitor_id"] != "someone-else"
