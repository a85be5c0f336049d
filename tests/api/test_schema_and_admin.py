"""The OpenAPI schema documents the error shape; the admin creates keys (shown once), revokes and rotates."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages
from django.test import Client

from api.models import BotSigningSecret, ServerApiKey, WidgetKey
from api.services import key_hash
from tests.api.factories import bearer, bot_make, workspace_make

pytestmark = pytest.mark.django_db


def test_the_schema_is_public_and_documents_the_error_shape() -> None:
    response = Client().get("/api/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    schema = response.json()
    error = schema["components"]["schemas"]["Error"]
    assert set(error["properties"]) == {"code", "message", "extra"}
    code_enum = schema["components"]["schemas"][
        error["properties"]["code"]["$ref"].rsplit("/", 1)[-1]
    ]
    assert {"rate_limited", "malformed_json", "not_found", "internal_error"} <= set(
        code_enum["enum"]
    )
    sessions = schema["paths"]["/api/v1/sessions"]["post"]["responses"]
    assert {"201", "400", "401", "404", "413", "429", "500"} <= set(sessions)
    assert "`chat` scope" in schema["paths"]["/api/v1/sessions"]["post"]["description"]
    assert sessions["429"]["content"]["application/json"]["schema"]["$ref"].endswith("/Error")
    events = schema["paths"]["/api/v1/streams/{stream_id}/events"]["get"]["responses"]
    assert "text/event-stream" in events["200"]["content"]
    assert schema["components"]["securitySchemes"]["ApiKey"]["scheme"] == "bearer"
    docs = Client().get("/api/docs/")
    assert docs.status_code == 200 and b"swagger" in docs.content.lower()


@pytest.fixture
def admin_client() -> Client:
    user = get_user_model().objects.create_superuser(
        "root", "root@example.com", "pw-for-tests-only"
    )
    client = Client()
    client.force_login(user)
    return client


def test_the_admin_shows_a_new_server_key_once_and_stores_its_hash(admin_client: Client) -> None:
    workspace = workspace_make()
    response = admin_client.post(
        "/admin/api/serverapikey/add/",
        {
            "workspace": workspace.pk,
            "name": "backend",
            "scopes": "chat,rag_search",
            "expires_at_0": "",
            "expires_at_1": "",
        },
        follow=True,
    )
    assert response.status_code == 200
    shown = [str(m) for m in get_messages(response.wsgi_request) if "psk_" in str(m)]
    assert len(shown) == 1
    raw_key = shown[0].rsplit(" ", 1)[-1]
    row = ServerApiKey.objects.get(workspace=workspace)
    assert row.secret_hash == key_hash(raw_key) and row.scopes == ["chat", "rag_search"]
    assert (
        raw_key
        not in admin_client.get(f"/admin/api/serverapikey/{row.pk}/change/").content.decode()
    )
    assert Client().get("/api/v1/me", **bearer(raw_key)).status_code == 200

    admin_client.post(
        "/admin/api/serverapikey/", {"action": "revoke", "_selected_action": [row.pk]}
    )
    assert Client().get("/api/v1/me", **bearer(raw_key)).status_code == 401


def test_the_admin_refuses_unknown_scopes(admin_client: Client) -> None:
    response = admin_client.post(
        "/admin/api/serverapikey/add/",
        {
            "workspace": workspace_make().pk,
            "name": "x",
            "scopes": "everything",
            "expires_at_0": "",
            "expires_at_1": "",
        },
    )
    assert response.status_code == 200  # the form again, with an error
    assert not ServerApiKey.objects.exists()


def test_the_admin_creates_widget_keys_with_normalized_origins_and_signing_secrets(
    admin_client: Client,
) -> None:
    bot = bot_make()
    admin_client.post(
        "/admin/api/widgetkey/add/",
        {
            "bot": bot.pk,
            "name": "site",
            "allowed_origins": "HTTPS://Shop.Example:443/,http://localhost:3000",
        },
    )
    key = WidgetKey.objects.get(bot=bot)
    assert key.key.startswith("ppk_")
    assert key.allowed_origins == ["http://localhost:3000", "https://shop.example"]
    refused = admin_client.post(
        "/admin/api/widgetkey/add/",
        {"bot": bot.pk, "name": "bad", "allowed_origins": "shop.example/path"},
    )
    assert refused.status_code == 200 and WidgetKey.objects.count() == 1

    admin_client.post("/admin/api/botsigningsecret/add/", {"bot": bot.pk})
    secret = BotSigningSecret.objects.get(bot=bot).secret
    assert len(secret) >= 32
    admin_client.post(
        "/admin/api/botsigningsecret/", {"action": "rotate", "_selected_action": [bot.pk]}
    )
    assert BotSigningSecret.objects.get(bot=bot).secret != secret
