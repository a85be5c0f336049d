"""The documents endpoints with a server key: create from text and from files, list, read, update, re-run, delete."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from api.principal import Principal, PrincipalKind
from api.services import visitor_session_start
from rag.models import Chunk, Document
from tests.api.factories import bearer, bot_make, server_key_make, workspace_make

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    settings.MEDIA_ROOT = tmp_path
    return tmp_path


@pytest.fixture
def tenant():  # type: ignore[no-untyped-def]
    workspace = workspace_make()
    raw, _ = server_key_make(workspace)
    return workspace, bot_make(workspace), bearer(raw)


def _post_text(headers: dict[str, str], **body: object):  # type: ignore[no-untyped-def]
    return Client().post("/api/v1/documents", body, content_type="application/json", **headers)


def test_text_document_is_created_pending_attached_and_readable(tenant) -> None:  # type: ignore[no-untyped-def]
    workspace, bot, headers = tenant
    response = _post_text(
        headers,
        title="Opening hours",
        text="# Hours\n\nWe open at 9.",
        format="markdown",
        bot_ids=[str(bot.pk)],
    )
    assert response.status_code == 201, response.content
    [created] = response.json()["documents"]
    assert created["status"] == "pending" and created["progress"] == 0 and created["error"] == ""
    assert created["title"] == "Opening hours" and created["filename"] == "opening-hours.md"
    assert created["bot_ids"] == [str(bot.pk)] and created["conversation_id"] is None
    document = Document.objects.get(pk=created["id"])
    assert document.workspace_id == workspace.pk
    assert document.file.read() == b"# Hours\n\nWe open at 9."
    detail = Client().get(f"/api/v1/documents/{created['id']}", **headers)
    assert detail.status_code == 200 and detail.json() == created


def test_multipart_upload_of_several_files_creates_one_document_each(tenant) -> None:  # type: ignore[no-untyped-def]
    _, bot, headers = tenant
    files = [
        SimpleUploadedFile("faq.txt", b"Returns within 30 days."),
        SimpleUploadedFile("a.md", b"# A\n\ntext"),
    ]
    response = Client().post(
        "/api/v1/documents", {"files": files, "bot_ids": [str(bot.pk)]}, **headers
    )
    assert response.status_code == 201, response.content
    documents = response.json()["documents"]
    assert sorted(d["filename"] for d in documents) == ["a.md", "faq.txt"]
    assert all(d["bot_ids"] == [str(bot.pk)] and d["status"] == "pending" for d in documents)
    assert Document.objects.count() == 2


def test_session_document_belongs_to_the_conversation(tenant) -> None:  # type: ignore[no-untyped-def]
    workspace, bot, headers = tenant

    principal = Principal(
        kind=PrincipalKind.SERVER,
        key_id=uuid.uuid4(),
        workspace_id=workspace.pk,
        bot_id=None,
        scopes=frozenset(),
    )
    session, _ = visitor_session_start(principal=principal, bot=bot, visitor_id="v1")
    response = _post_text(
        headers,
        title="My CV",
        text="Ten years of baking.",
        conversation_id=str(session.conversation_id),
    )
    assert response.status_code == 201, response.content
    assert response.json()["documents"][0]["conversation_id"] == str(session.conversation_id)
    listed = (
        Client()
        .get(f"/api/v1/documents?conversation_id={session.conversation_id}", **headers)
        .json()["results"]
    )
    assert [d["title"] for d in listed] == ["My CV"]
    both = _post_text(
        headers,
        title="x",
        text="y",
        conversation_id=str(session.conversation_id),
        bot_ids=[str(bot.pk)],
    )
    assert both.status_code == 400 and "conversation_id" in both.json()["extra"]["fields"]


def test_external_user_documents_are_private_to_that_user(tenant) -> None:  # type: ignore[no-untyped-def]
    _, _, headers = tenant
    alice = {**headers, "HTTP_X_PARLEY_EXTERNAL_USER": "alice"}
    bob = {**headers, "HTTP_X_PARLEY_EXTERNAL_USER": "bob"}
    private = _post_text(alice, title="Alice's notes", text="secret").json()["documents"][0]
    shared = _post_text(headers, title="Handbook", text="for all").json()["documents"][0]
    assert private["external_user_id"] == "alice"
    for who, visible in (
        (alice, {private["id"], shared["id"]}),
        (bob, {shared["id"]}),
        (headers, {shared["id"]}),
    ):
        listed = Client().get("/api/v1/documents", **who).json()["results"]
        assert {d["id"] for d in listed} == visible
    for who in (bob, headers):
        for call in (Client().get, Client().delete):
            response = call(f"/api/v1/documents/{private['id']}", **who)
            assert response.status_code == 404 and response.json()["code"] == "not_found"
    assert Document.objects.filter(pk=private["id"]).exists()


def test_list_is_paginated_filtered_and_has_no_n_plus_one(tenant) -> None:  # type: ignore[no-untyped-def]
    workspace, bot, headers = tenant
    other_bot = bot_make(workspace, name="Other")

    def listed_with_queries(count: int) -> int:
        Document.objects.all().delete()
        for index in range(count):
            _post_text(
                headers, title=f"Doc {index}", text="text", bot_ids=[str(bot.pk), str(other_bot.pk)]
            )
        with CaptureQueriesContext(connection) as queries:
            response = Client().get("/api/v1/documents?limit=50", **headers)
        assert response.status_code == 200 and response.json()["count"] == count
        assert all(len(d["bot_ids"]) == 2 for d in response.json()["results"])
        return len(queries)

    assert listed_with_queries(2) == listed_with_queries(12)
    page = Client().get("/api/v1/documents?limit=5&offset=10", **headers).json()
    assert page["count"] == 12 and len(page["results"]) == 2 and page["next"] is None
    Document.objects.filter(title="Doc 3").update(
        status="failed", error="The file is empty.", error_code="empty"
    )
    failed = Client().get("/api/v1/documents?status=failed", **headers).json()["results"]
    assert [(d["title"], d["error_code"], d["error"]) for d in failed] == [
        ("Doc 3", "empty", "The file is empty.")
    ]
    _post_text(headers, title="Unattached", text="t", bot_ids=[])  # explicitly for no bot
    by_bot = Client().get(f"/api/v1/documents?bot_id={bot.pk}", **headers).json()
    assert by_bot["count"] == 12
    bad = Client().get("/api/v1/documents?status=done", **headers)
    assert bad.status_code == 400 and "status" in bad.json()["extra"]["fields"]


def test_update_rerun_and_delete(tenant, django_capture_on_commit_callbacks) -> None:  # type: ignore[no-untyped-def]
    workspace, bot, headers = tenant
    created = _post_text(headers, title="Old", text="body").json()["documents"][0]
    url = f"/api/v1/documents/{created['id']}"
    patched = Client().patch(
        url, {"title": "New", "bot_ids": [str(bot.pk)]}, content_type="application/json", **headers
    )
    assert (
        patched.status_code == 200
        and patched.json()["title"] == "New"
        and patched.json()["bot_ids"] == [str(bot.pk)]
    )
    foreign = bot_make(workspace_make())
    refused = Client().patch(
        url, {"bot_ids": [str(foreign.pk)]}, content_type="application/json", **headers
    )
    assert refused.status_code == 400 and "bot_ids" in refused.json()["extra"]["fields"]
    assert list(Document.objects.get(pk=created["id"]).bots.all()) == [bot]

    Document.objects.filter(pk=created["id"]).update(
        status="failed", error="boom", error_code="x", progress=40
    )
    rerun = Client().post(f"{url}/rerun", **headers)
    assert (
        rerun.status_code == 202
        and rerun.json()["status"] == "pending"
        and rerun.json()["error"] == ""
    )
    again = Client().post(f"{url}/rerun", **headers)  # already queued: left as it is
    assert again.status_code == 202 and again.json()["status"] == "pending"

    document = Document.objects.get(pk=created["id"])
    Chunk.objects.bulk_create(
        [
            Chunk(
                document=document,
                workspace=workspace,
                ordinal=0,
                text="t",
                embedding=[0.1] * 384,
                embedding_dims=384,
                embedding_model="m",
            )
        ]
    )
    path = Path(document.file.path)
    assert path.exists()
    with django_capture_on_commit_callbacks(execute=True):
        deleted = Client().delete(url, **headers)
    assert deleted.status_code == 204
    assert not Document.objects.filter(pk=created["id"]).exists() and not Chunk.objects.exists()
    assert not path.exists()
    assert Client().get(url, **headers).status_code == 404
