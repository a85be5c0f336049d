"""Documents under attack: other tenants, other external users, weak keys and bad input.

Every refusal has the error shape, and nothing is written: document counts stay the same.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone

from api.principal import Principal, PrincipalKind
from api.services import server_api_key_revoke, visitor_session_start
from rag.models import Document
from tests.api.factories import (
    bearer,
    bot_make,
    server_key_make,
    signing_secret_make,
    widget_key_make,
    workspace_make,
)

pytestmark = pytest.mark.django_db
JSON = "application/json"


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    settings.MEDIA_ROOT = tmp_path
    return tmp_path


@pytest.fixture
def world() -> dict[str, Any]:
    """An owner's workspace with a document, a teammate key in it, and a stranger's workspace."""
    workspace, stranger_workspace = workspace_make(), workspace_make()
    bot, stranger_bot = bot_make(workspace), bot_make(stranger_workspace)
    owner, _ = server_key_make(workspace)
    teammate, _ = server_key_make(workspace, scopes=("documents:read",))
    stranger, _ = server_key_make(stranger_workspace)
    created = Client().post(
        "/api/v1/documents",
        {"title": "Handbook", "text": "Be kind."},
        content_type=JSON,
        **bearer(owner),
    )
    assert created.status_code == 201
    return {
        "workspace": workspace,
        "bot": bot,
        "stranger_bot": stranger_bot,
        "owner": bearer(owner),
        "teammate": bearer(teammate),
        "stranger": bearer(stranger),
        "document_id": created.json()["documents"][0]["id"],
    }


@pytest.fixture
def unchanged() -> Iterator[Callable[[], None]]:
    """Call it after the requests: asserts no document (and no file) was added or removed."""
    before: list[int] = []

    def check() -> None:
        assert Document.objects.count() == before[0]

    before.append(Document.objects.count())
    yield check


def _refused(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"code", "message", "extra"} and body["code"] == code, body
    return body


def _every_call(document_id: str) -> list[tuple[str, str, dict[str, Any]]]:
    url = f"/api/v1/documents/{document_id}"
    return [
        ("get", url, {}),
        ("patch", url, {"title": "Mine now"}),
        ("post", f"{url}/rerun", {}),
        ("delete", url, {}),
    ]


def _call(method: str, url: str, body: dict[str, Any], headers: dict[str, str]) -> Any:
    if method in ("get", "delete"):
        return getattr(Client(), method)(url, **headers)
    return getattr(Client(), method)(url, json.dumps(body), content_type=JSON, **headers)


def test_a_stranger_gets_the_same_404_as_for_a_missing_document(world, unchanged) -> None:  # type: ignore[no-untyped-def]
    missing = "00000000-0000-4000-8000-000000000000"
    for method, url, body in _every_call(world["document_id"]) + _every_call(missing):
        response = _call(method, url, body, world["stranger"])
        assert _refused(response, 404, "not_found")["message"] == "Not found."
    assert Client().get("/api/v1/documents", **world["stranger"]).json()["count"] == 0
    assert Document.objects.get(pk=world["document_id"]).title == "Handbook"
    unchanged()


def test_a_teammate_reads_but_a_read_only_key_cannot_write(world, unchanged) -> None:  # type: ignore[no-untyped-def]
    assert (
        Client().get(f"/api/v1/documents/{world['document_id']}", **world["teammate"]).status_code
        == 200
    )
    for method, url, body in _every_call(world["document_id"])[1:]:
        _refused(_call(method, url, body, world["teammate"]), 403, "insufficient_scope")
    created = Client().post(
        "/api/v1/documents", {"title": "t", "text": "x"}, content_type=JSON, **world["teammate"]
    )
    _refused(created, 403, "insufficient_scope")
    unchanged()


def test_another_external_user_cannot_reach_a_private_document(world) -> None:  # type: ignore[no-untyped-def]
    alice = {**world["owner"], "HTTP_X_PARLEY_EXTERNAL_USER": "alice"}
    created = Client().post(
        "/api/v1/documents", {"title": "Mine", "text": "x"}, content_type=JSON, **alice
    )
    document_id = created.json()["documents"][0]["id"]
    before = Document.objects.count()
    for who in ({**world["owner"], "HTTP_X_PARLEY_EXTERNAL_USER": "mallory"}, world["owner"]):
        for method, url, body in _every_call(document_id):
            _refused(_call(method, url, body, who), 404, "not_found")
    _refused(
        Client().get(f"/api/v1/documents/{document_id}", **world["teammate"]), 404, "not_found"
    )
    assert Document.objects.count() == before


def test_bots_and_conversations_of_other_workspaces_cannot_be_used(world, unchanged) -> None:  # type: ignore[no-untyped-def]
    stranger_bot = world["stranger_bot"]
    principal = Principal(
        kind=PrincipalKind.SERVER,
        key_id=stranger_bot.pk,
        workspace_id=stranger_bot.workspace_id,
        bot_id=None,
        scopes=frozenset(),
    )
    foreign_session, _ = visitor_session_start(
        principal=principal, bot=stranger_bot, visitor_id="v"
    )
    for body in (
        {"bot_ids": [str(world["bot"].pk), str(stranger_bot.pk)]},
        {"conversation_id": str(foreign_session.conversation_id)},
    ):
        response = Client().post(
            "/api/v1/documents",
            {"title": "t", "text": "x", **body},
            content_type=JSON,
            **world["owner"],
        )
        assert set(_refused(response, 400, "invalid_request")["extra"]["fields"]) == set(body)
    upload = {"files": [SimpleUploadedFile("a.txt", b"x")], "bot_ids": [str(stranger_bot.pk)]}
    _refused(Client().post("/api/v1/documents", upload, **world["owner"]), 400, "invalid_request")
    unchanged()


def test_widget_keys_and_forged_signatures_cannot_manage_documents(world, unchanged) -> None:  # type: ignore[no-untyped-def]
    widget = widget_key_make(world["bot"])
    signing_secret_make(world["bot"])
    browser = {**bearer(widget.key), "HTTP_ORIGIN": "https://shop.example"}
    _refused(Client().get("/api/v1/documents", **browser), 403, "insufficient_scope")
    for method, url, body in _every_call(world["document_id"]):
        _refused(_call(method, url, body, browser), 403, "insufficient_scope")
    forged = {
        **browser,
        "HTTP_X_PARLEY_EXTERNAL_USER": "alice",
        "HTTP_X_PARLEY_EXTERNAL_USER_SIGNATURE": "00" * 32,
    }
    _refused(Client().get("/api/v1/documents", **forged), 401, "invalid_external_user_signature")
    elsewhere = {**bearer(widget.key), "HTTP_ORIGIN": "https://evil.example"}
    _refused(
        Client().post(
            "/api/v1/documents", {"title": "t", "text": "x"}, content_type=JSON, **elsewhere
        ),
        401,
        "origin_not_allowed",  # a valid widget key from an origin it does not allow: the cause named
    )
    unchanged()


def test_revoked_expired_and_missing_keys_are_refused(world, unchanged) -> None:  # type: ignore[no-untyped-def]
    revoked, revoked_id = server_key_make(world["workspace"])
    server_api_key_revoke(key_id=revoked_id)
    expired, _ = server_key_make(
        world["workspace"], expires_at=timezone.now() - timedelta(seconds=1)
    )
    body = json.dumps({"title": "t", "text": "x"})
    for headers in (bearer(revoked), bearer(expired), bearer("psk_nope_nope")):
        _refused(
            Client().post("/api/v1/documents", body, content_type=JSON, **headers),
            401,
            "authentication_failed",
        )
        _refused(
            Client().get(f"/api/v1/documents/{world['document_id']}", **headers),
            401,
            "authentication_failed",
        )
    _refused(Client().get("/api/v1/documents"), 401, "authentication_required")
    unchanged()


@pytest.mark.parametrize(
    ("raw", "code", "field"),
    [
        ("{not json", "malformed_json", None),
        ('{"title": 3, "text": "x"}', "invalid_request", "title"),
        ('{"title": "t", "text": ["x"]}', "invalid_request", "text"),
        ('{"title": "t", "text": "   "}', "invalid_request", "text"),
        ('{"title": "t"}', "invalid_request", "text"),
        ('{"title": "t", "text": "x", "bot_ids": "all"}', "invalid_request", "bot_ids"),
        ('{"title": "t", "text": "x", "bot_ids": [12]}', "invalid_request", "bot_ids"),
        ('{"title": "t", "text": "x", "format": "pdf"}', "invalid_request", "format"),
        (
            '{"title": "t", "text": "x", "conversation_id": "nope"}',
            "invalid_request",
            "conversation_id",
        ),
        ('["title", "text"]', "invalid_request", "non_field_errors"),
    ],
)
def test_bad_json_bodies(world, unchanged, raw: str, code: str, field: str | None) -> None:  # type: ignore[no-untyped-def]
    body = _refused(
        Client().post("/api/v1/documents", raw, content_type=JSON, **world["owner"]), 400, code
    )
    if field:
        assert field in body["extra"]["fields"]
    unchanged()


def test_bad_uploads(world, unchanged, settings) -> None:  # type: ignore[no-untyped-def]
    settings.PARLEY_UPLOAD_MAX_BYTES = 2048
    settings.API_DOCUMENTS_MAX_FILES = 2
    post = lambda data: Client().post("/api/v1/documents", data, **world["owner"])  # noqa: E731
    files = [SimpleUploadedFile("ok.txt", b"x"), SimpleUploadedFile("big.txt", b"x" * 4096)]
    too_big = _refused(post({"files": files}), 413, "payload_too_large")
    assert too_big["extra"] == {"filename": "big.txt", "max_bytes": 2048}
    wrong_type = _refused(
        post({"files": [SimpleUploadedFile("tool.exe", b"MZ")]}), 400, "invalid_request"
    )
    assert "not supported" in wrong_type["extra"]["fields"]["files"][0]
    _refused(
        post({"files": [SimpleUploadedFile(f"{n}.txt", b"x") for n in range(3)]}),
        400,
        "invalid_request",
    )
    _refused(post({"title": "no file"}), 400, "invalid_request")
    two = [SimpleUploadedFile("a.txt", b"a"), SimpleUploadedFile("b.txt", b"b")]
    _refused(post({"files": two, "title": "one title"}), 400, "invalid_request")
    long_text = json.dumps({"title": "t", "text": "x" * 3000})
    _refused(
        Client().post("/api/v1/documents", long_text, content_type=JSON, **world["owner"]),
        400,
        "invalid_request",
    )
    unchanged()


def test_the_documents_endpoint_alone_takes_bodies_over_the_api_cap(world, settings) -> None:  # type: ignore[no-untyped-def]
    settings.API_MAX_REQUEST_BODY_BYTES = 4096
    settings.API_DOCUMENTS_MAX_REQUEST_BYTES = 64 * 1024
    settings.PARLEY_UPLOAD_MAX_BYTES = 32 * 1024
    before = Document.objects.count()
    file = SimpleUploadedFile(
        "long.txt", b"Paragraph.\n\n" * 1000
    )  # 12 kB: over the API cap, under the upload cap
    assert (
        Client().post("/api/v1/documents", {"files": [file]}, **world["owner"]).status_code == 201
    )
    elsewhere = Client().post(
        "/api/v1/sessions",
        json.dumps({"visitor_id": "v" * 5000}),
        content_type=JSON,
        **world["owner"],
    )
    assert _refused(elsewhere, 413, "payload_too_large")["extra"] == {"max_bytes": 4096}
    huge = SimpleUploadedFile("huge.txt", b"x" * (70 * 1024))
    body = _refused(
        Client().post("/api/v1/documents", {"files": [huge]}, **world["owner"]),
        413,
        "payload_too_large",
    )
    assert body["extra"] == {"max_bytes": 64 * 1024}
    assert Document.objects.count() == before + 1
