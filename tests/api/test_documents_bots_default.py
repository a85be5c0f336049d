"""The API's upload gives a document to the bots the admin's upload would (issue 51, finding 14):
left out, `bot_ids` means every bot the key may use; sent empty, no bot. The answer names the bots
that got each document, and the OpenAPI schema says so."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from api.principal import Principal, PrincipalKind
from api.services import visitor_session_start
from rag.models import Document
from tests.api.factories import bearer, bot_make, server_key_make, workspace_make

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media_root(settings: Any, tmp_path: Path) -> Path:
    settings.MEDIA_ROOT = tmp_path
    return tmp_path


@pytest.fixture
def tenant() -> Any:
    workspace = workspace_make()
    beta, alpha = bot_make(workspace, name="Beta"), bot_make(workspace, name="Alpha")
    bot_make(workspace_make(), name="Stranger")  # another workspace's bot never gets it
    raw, _ = server_key_make(workspace)
    return workspace, [alpha, beta], bearer(raw)


def _named(bots: list[Any]) -> list[dict[str, str]]:
    return [{"id": str(bot.pk), "name": bot.name} for bot in bots]


def _post(headers: dict[str, str], body: dict[str, Any], *, multipart: bool = False) -> Any:
    if multipart:
        return Client().post("/api/v1/documents", body, **headers)
    return Client().post("/api/v1/documents", body, content_type="application/json", **headers)


def test_an_upload_without_bot_ids_goes_to_every_bot_of_the_workspace(tenant: Any) -> None:
    _, bots, headers = tenant
    response = _post(headers, {"title": "Hours", "text": "We open at 9."})
    assert response.status_code == 201, response.content
    [created] = response.json()["documents"]
    assert created["bots"] == _named(bots)  # by name: Alpha, Beta
    assert created["bot_ids"] == sorted(str(bot.pk) for bot in bots)
    assert set(Document.objects.get(pk=created["id"]).bots.all()) == set(bots)

    files = [
        SimpleUploadedFile("faq.txt", b"Returns in 30 days."),
        SimpleUploadedFile("b.md", b"x"),
    ]
    response = _post(headers, {"files": files}, multipart=True)
    assert response.status_code == 201, response.content
    assert [d["bots"] for d in response.json()["documents"]] == [_named(bots)] * 2
    # Read back, a document names its bots the same way.
    detail = Client().get(f"/api/v1/documents/{created['id']}", **headers).json()
    assert detail["bots"] == _named(bots)


def test_bot_ids_sent_empty_gives_the_document_to_no_bot(tenant: Any) -> None:
    _, bots, headers = tenant
    response = _post(headers, {"title": "Draft", "text": "Not yet.", "bot_ids": []})
    assert response.status_code == 201, response.content
    [created] = response.json()["documents"]
    assert created["bots"] == [] and created["bot_ids"] == []
    upload = {"files": [SimpleUploadedFile("draft.txt", b"Not yet.")], "bot_ids": ""}
    response = _post(headers, upload, multipart=True)
    assert response.status_code == 201, response.content
    assert response.json()["documents"][0]["bots"] == []
    assert not Document.objects.filter(bots__isnull=False).exists()
    # In JSON an empty string is no bot id.
    refused = _post(headers, {"title": "Draft", "text": "Not yet.", "bot_ids": [""]})
    assert refused.status_code == 400 and "bot_ids" in refused.json()["extra"]["fields"]
    # Named bots: those alone.
    response = _post(headers, {"title": "A", "text": "a", "bot_ids": [str(bots[1].pk)]})
    assert response.json()["documents"][0]["bots"] == _named([bots[1]])


def test_a_conversations_document_goes_to_no_bot(tenant: Any) -> None:
    workspace, bots, headers = tenant
    principal = Principal(
        kind=PrincipalKind.SERVER,
        key_id=uuid.uuid4(),
        workspace_id=workspace.pk,
        bot_id=None,
        scopes=frozenset(),
    )
    session, _ = visitor_session_start(principal=principal, bot=bots[0], visitor_id="v1")
    body = {"title": "My CV", "text": "Baker.", "conversation_id": str(session.conversation_id)}
    response = _post(headers, body)
    assert response.status_code == 201, response.content
    assert response.json()["documents"][0]["bots"] == []


def test_the_schema_says_the_default_and_names_the_bots() -> None:
    schema = Client().get("/api/schema/", HTTP_ACCEPT="application/json").json()
    components = schema["components"]["schemas"]
    for request in ("DocumentTextCreateRequest", "DocumentUploadRequest"):
        described = components[request]["properties"]["bot_ids"]["description"]
        assert "every bot" in described and "no bot" in described, request
    bots = components["Document"]["properties"]["bots"]
    assert bots["type"] == "array" and bots["items"]["$ref"].endswith("/BotRef")
    assert set(components["BotRef"]["properties"]) == {"id", "name"}
    assert "bots" in components["Document"]["required"]
