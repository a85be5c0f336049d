"""The sources API: create (with the upload's bot default), list, read with the last sync's counts,
sync on demand, delete (retiring the documents), isolation between workspaces and scopes, the
schema, and the audit trail."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from audit.models import AuditEntry
from rag.models import Chunk, Document
from sources.models import Source, SourceSync
from sources.sync.runner import sync_run
from tests.api.factories import bearer, bot_make, server_key_make, workspace_make
from tests.sources.conftest import ingest_pending

pytestmark = pytest.mark.django_db
JSON = "application/json"


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    settings.MEDIA_ROOT = tmp_path / "media"
    return tmp_path


@pytest.fixture
def world(docs_repo: Path, checkouts: Path) -> dict[str, Any]:
    workspace, stranger_workspace = workspace_make(), workspace_make()
    desk, shop = bot_make(workspace, "Desk"), bot_make(workspace, "Shop")
    bot_make(stranger_workspace)
    owner, _ = server_key_make(workspace)
    teammate, _ = server_key_make(workspace, scopes=("documents:read",))
    stranger, _ = server_key_make(stranger_workspace)
    return {
        "workspace": workspace,
        "bots": {desk.pk, shop.pk},
        "owner": bearer(owner),
        "teammate": bearer(teammate),
        "stranger": bearer(stranger),
        "config": {
            "repository_url": str(docs_repo),
            "path": "docs",
            "base_url": "https://d.example/",
        },
    }


def _create(world: dict[str, Any], **extra: Any) -> Any:
    body = {"name": "Handbook", "kind": "git", "config": world["config"], **extra}
    return Client().post("/api/v1/sources", body, content_type=JSON, **world["owner"])


def test_a_source_is_created_for_every_bot_and_synced(world) -> None:
    response = _create(world, credentials={"header_name": "X-Token", "header_value": "s3cret"})
    assert response.status_code == 201, response.content
    body = response.json()
    assert {str(b) for b in world["bots"]} == set(body["bot_ids"])
    assert body["has_credentials"] is True and "s3cret" not in response.content.decode()
    assert body["last_sync"]["status"] == "queued"
    sync = SourceSync.objects.get(pk=body["last_sync"]["id"])
    assert sync_run(sync_id=sync.pk, claim_id="api-test") == "done"
    ingest_pending(Source.objects.get(pk=body["id"]))
    detail = Client().get(f"/api/v1/sources/{body['id']}", **world["teammate"]).json()
    assert detail["last_sync"]["status"] == "done"
    assert detail["last_sync"]["counts"]["new"] == 4
    assert detail["last_sync"]["progress"] == {"done": 4, "total": 4}
    document = Document.objects.get(source_url="https://d.example/guide/warranty")
    assert set(document.bots.values_list("pk", flat=True)) == world["bots"]


def test_an_empty_bot_list_gives_the_pages_to_no_bot(world) -> None:
    body = _create(world, bot_ids=[], sync=False).json()
    assert body["bot_ids"] == [] and body["last_sync"] is None


def test_sync_on_demand_runs_one_at_a_time(world) -> None:
    source_id = _create(world, sync=False).json()["id"]
    first = Client().post(f"/api/v1/sources/{source_id}/sync", **world["owner"])
    again = Client().post(f"/api/v1/sources/{source_id}/sync", **world["owner"])
    assert first.status_code == again.status_code == 202
    assert first.json()["id"] == again.json()["id"]


def test_delete_retires_the_documents(world) -> None:
    body = _create(world).json()
    sync_run(sync_id=body["last_sync"]["id"], claim_id="api-test")
    ingest_pending(Source.objects.get(pk=body["id"]))
    assert Document.objects.filter(workspace=world["workspace"]).count() == 4
    response = Client().delete(f"/api/v1/sources/{body['id']}", **world["owner"])
    assert response.status_code == 204
    assert not Source.objects.filter(pk=body["id"]).exists()
    assert not Document.objects.filter(workspace=world["workspace"]).exists()
    assert not Chunk.objects.filter(workspace=world["workspace"]).exists()


def test_workspaces_and_scopes_are_kept_apart(world) -> None:
    source_id = _create(world, sync=False).json()["id"]
    client = Client()
    # The stranger sees nothing, and another workspace's source reads as not found.
    assert client.get("/api/v1/sources", **world["stranger"]).json()["results"] == []
    for method, path in (
        ("get", f"/api/v1/sources/{source_id}"),
        ("post", f"/api/v1/sources/{source_id}/sync"),
        ("delete", f"/api/v1/sources/{source_id}"),
    ):
        response = getattr(client, method)(path, **world["stranger"])
        assert response.status_code == 404, (method, path)
        assert response.json()["code"] == "not_found"
    # The teammate reads but may not write.
    listed = client.get("/api/v1/sources", **world["teammate"]).json()["results"]
    assert [source["id"] for source in listed] == [source_id]
    refused = client.post(f"/api/v1/sources/{source_id}/sync", **world["teammate"])
    assert refused.status_code == 403
    refused = client.delete(f"/api/v1/sources/{source_id}", **world["teammate"])
    assert refused.status_code == 403
    assert Source.objects.filter(pk=source_id).exists()
    assert SourceSync.objects.filter(source_id=source_id).count() == 0


def test_bad_configurations_are_refused(world) -> None:
    client = Client()
    for body in (
        {"name": "x", "kind": "website", "config": {"start_urls": ["ftp://files.example/"]}},
        {"name": "x", "kind": "website", "config": {}},
        {"name": "x", "kind": "git", "config": {}},
        {"name": "x", "kind": "svn", "config": {}},
    ):
        response = client.post("/api/v1/sources", body, content_type=JSON, **world["owner"])
        assert response.status_code == 400, body
        assert set(response.json()) == {"code", "message", "extra"}
    assert not Source.objects.exists()


def test_sources_are_in_the_schema() -> None:
    schema = Client().get("/api/schema/", HTTP_ACCEPT="application/json").json()
    assert set(schema["paths"]["/api/v1/sources"]) >= {"get", "post"}
    assert set(schema["paths"]["/api/v1/sources/{source_id}"]) >= {"get", "delete"}
    assert "post" in schema["paths"]["/api/v1/sources/{source_id}/sync"]
    assert "credentials" not in schema["components"]["schemas"]["Source"]["properties"]


def test_sources_are_audited_with_their_credentials_redacted(world) -> None:
    body = _create(world, credentials={"header_name": "X-Token", "header_value": "s3cret"}).json()
    entries = AuditEntry.objects.filter(kind=AuditEntry.Kind.SOURCE, object_pk=body["id"])
    assert entries.exists()
    assert all(str(world["workspace"].pk) in map(str, e.workspaces) for e in entries)
    assert "s3cret" not in str(list(entries.values_list("changes", flat=True)))
    Client().delete(f"/api/v1/sources/{body['id']}", **world["owner"])
    assert AuditEntry.objects.filter(
        kind=AuditEntry.Kind.SOURCE, object_pk=body["id"], action=AuditEntry.Action.DELETE
    ).exists()
