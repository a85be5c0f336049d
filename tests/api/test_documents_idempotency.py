"""Uploads with an Idempotency-Key: a client that lost the answer sends the upload again and gets the
documents the first request created, never a second copy (bench/cluster kills a web process mid-upload
and counts on it)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import IntegrityError, connection, transaction
from django.test import Client

from config.celery import app as celery_app
from rag.models import Document
from rag.services import NewFile, documents_create
from tests.api.factories import bearer, bot_make, server_key_make, workspace_make
from tests.support.processes import wait_for

pytestmark = pytest.mark.django_db
JSON = "application/json"


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    settings.MEDIA_ROOT = tmp_path
    return tmp_path


@pytest.fixture
def tenant():  # type: ignore[no-untyped-def]
    workspace = workspace_make()
    raw, _ = server_key_make(workspace)
    return workspace, bot_make(workspace), bearer(raw)


def _post(headers: dict[str, str], key: str | None, **body: object):  # type: ignore[no-untyped-def]
    extra = {"HTTP_IDEMPOTENCY_KEY": key} if key is not None else {}
    return Client().post("/api/v1/documents", body, content_type=JSON, **headers, **extra)


@pytest.fixture
def unread_queue() -> Iterator[None]:
    """Committed uploads queue their ingestion: to a queue no worker reads, so none runs meanwhile."""
    previous = celery_app.conf.task_default_queue
    celery_app.conf.task_default_queue = "parley-test-idempotency-unread"
    try:
        yield
    finally:
        celery_app.conf.task_default_queue = previous


def _ids(response) -> list[str]:  # type: ignore[no-untyped-def]
    return [document["id"] for document in response.json()["documents"]]


def test_the_same_key_twice_returns_the_first_upload_and_creates_nothing(tenant) -> None:  # type: ignore[no-untyped-def]
    workspace, bot, headers = tenant
    first = _post(
        headers, "upload-7f3a", title="Hours", text="We open at 9.", bot_ids=[str(bot.pk)]
    )
    assert first.status_code == 201 and "Idempotent-Replayed" not in first.headers
    again = _post(
        headers, "upload-7f3a", title="Hours", text="We open at 9.", bot_ids=[str(bot.pk)]
    )
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert _ids(again) == _ids(first)  # (its status may have moved on: a worker may ingest it)
    assert Document.objects.filter(workspace=workspace).count() == 1
    other = _post(headers, "upload-8b1c", title="Hours", text="We open at 9.")
    assert other.status_code == 201 and _ids(other) != _ids(first)
    plain = [_post(headers, None, title="Plain", text="No key.") for _ in range(2)]
    assert [response.status_code for response in plain] == [201, 201]  # no key: two documents
    assert Document.objects.filter(workspace=workspace).count() == 4


def test_a_multipart_upload_replays_every_file_in_order(tenant) -> None:  # type: ignore[no-untyped-def]
    workspace, _, headers = tenant

    def upload():  # type: ignore[no-untyped-def]
        files = [SimpleUploadedFile(f"{n}.txt", f"Text {n}.".encode()) for n in ("a", "b", "c")]
        return Client().post(
            "/api/v1/documents", {"files": files}, HTTP_IDEMPOTENCY_KEY="batch-1", **headers
        )

    first, again = upload(), upload()
    assert (first.status_code, again.status_code) == (201, 200)
    names = [document["filename"] for document in again.json()["documents"]]
    assert names == ["a.txt", "b.txt", "c.txt"] and _ids(again) == _ids(first)
    # A retry that carries fewer files still gets the whole first upload, in its order.
    one = Client().post(
        "/api/v1/documents",
        {"files": [SimpleUploadedFile("a.txt", b"Text a.")]},
        HTTP_IDEMPOTENCY_KEY="batch-1",
        **headers,
    )
    assert one.status_code == 200 and _ids(one) == _ids(first)
    # A key that extends another ("batch-1#1" is not batch-1's second file) is a key of its own.
    other = _post(headers, "batch-1#1", title="Other", text="Other.")
    assert other.status_code == 201 and _ids(other)[0] not in _ids(first)
    assert Document.objects.filter(workspace=workspace).count() == 4


def test_keys_are_per_workspace_and_per_external_user(tenant) -> None:  # type: ignore[no-untyped-def]
    workspace, _, headers = tenant
    alice = {**headers, "HTTP_X_PARLEY_EXTERNAL_USER": "alice"}
    mallory = {**headers, "HTTP_X_PARLEY_EXTERNAL_USER": "mallory"}
    hers = _post(alice, "k1", title="Alice's notes", text="Private.")
    theirs = _post(mallory, "k1", title="Mallory's notes", text="Other.")
    assert (hers.status_code, theirs.status_code) == (201, 201)  # the same key reveals nothing
    assert theirs.json()["documents"][0]["title"] == "Mallory's notes"
    stranger_raw, _ = server_key_make(workspace_make())
    elsewhere = _post(bearer(stranger_raw), "k1", title="Elsewhere", text="Another tenant.")
    assert elsewhere.status_code == 201
    assert Document.objects.filter(workspace=workspace).count() == 2


def test_a_key_that_is_not_visible_ascii_is_refused_and_nothing_is_stored(tenant) -> None:  # type: ignore[no-untyped-def]
    workspace, _, headers = tenant
    for key in ("has space", "x" * 201, "trailing\n"):
        response = _post(headers, key, title="Hours", text="We open at 9.")
        assert response.status_code == 400, response.content
        body = response.json()
        assert body["code"] == "invalid_request" and "Idempotency-Key" in body["extra"]["fields"]
    assert not Document.objects.filter(workspace=workspace).exists()


@pytest.mark.django_db(transaction=True)
def test_two_uploads_racing_with_one_key_store_one_document_and_no_file(
    tenant, media_root: Path, unread_queue: None
) -> None:  # type: ignore[no-untyped-def]
    """The second of two concurrent uploads looks before the first commits and finds nothing; its
    insert then waits on the unique key, fails once the first commits, removes the file it had
    stored, and answers with the first's document."""
    workspace, _, headers = tenant
    inserted, release = threading.Event(), threading.Event()
    answers: list[Any] = []

    def first_upload() -> None:
        try:
            with transaction.atomic():
                documents_create(
                    workspace=workspace,
                    files=[
                        NewFile(file=ContentFile(b"first", name="first.txt"), upload_key="race#0")
                    ],
                )
                inserted.set()
                release.wait(30)
        finally:
            connection.close()

    def second_upload() -> None:
        try:
            answers.append(_post(headers, "race", title="Second", text="Second."))
        finally:
            connection.close()

    def second_waits_on_the_key() -> bool:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO \"rag_document\"%%'"
            )
            return bool(cursor.fetchone()[0])

    first = threading.Thread(target=first_upload)
    second = threading.Thread(target=second_upload)
    first.start()
    try:
        assert inserted.wait(30)
        second.start()
        # The second passed its look-up and its insert waits: the race path, not the early replay.
        wait_for(second_waits_on_the_key, timeout=30, what="the second insert to wait on the key")
    finally:
        release.set()
        first.join(30)
        if second.ident is not None:
            second.join(30)
    [answer] = answers
    assert answer.status_code == 200 and answer.headers["Idempotent-Replayed"] == "true"
    [document] = Document.objects.filter(workspace=workspace)
    assert answer.json()["documents"][0]["id"] == str(document.pk)
    assert [p.name for p in media_root.rglob("*") if p.is_file()] == ["first.txt"]
    with pytest.raises(IntegrityError):  # without the API's look-up, the key still holds
        documents_create(
            workspace=workspace,
            files=[NewFile(file=ContentFile(b"late", name="late.txt"), upload_key="race#0")],
        )
    assert [p.name for p in media_root.rglob("*") if p.is_file()] == ["first.txt"]
