"""The source admin: add a source with write-only credentials, "Sync now", the progress JSON the bar
polls, the last syncs' counts and the pages; another workspace's owner sees none of it."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from core.models import Membership, Workspace
from sources.models import Source, SourceSync
from sources.sync.runner import sync_run
from tests.sources.conftest import ingest_pending


def _owner_client(workspace: Workspace) -> Client:
    user = get_user_model().objects.create_user(
        f"owner-{uuid.uuid4().hex[:6]}", password="pw-123-long", is_staff=True
    )
    Membership.objects.create(workspace=workspace, user=user, role=Membership.Role.OWNER)
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.django_db
def test_an_owner_adds_a_source_syncs_it_and_reads_its_pages(
    workspace, bot, docs_repo: Path, checkouts: Path
) -> None:
    client = _owner_client(workspace)
    config = f'{{"repository_url": "{docs_repo}", "path": "docs"}}'
    response = client.post(
        "/admin/sources/source/add/",
        {
            "workspace": workspace.pk,
            "name": "Handbook",
            "kind": "git",
            "config": config,
            "bots": [bot.pk],
            "schedule_minutes": 0,
            "enabled": "on",
            "header_name": "X-Token",
            "header_value": "s3cret-value",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    source = Source.objects.get(name="Handbook")
    assert source.credentials == {"header_name": "X-Token", "header_value": "s3cret-value"}
    page = client.get(f"/admin/sources/source/{source.pk}/change/").content.decode()
    assert "s3cret-value" not in page and "header_value: set" in page
    assert "Sync now" in page and "sync-progress" in page

    assert client.get(f"/admin/sources/source/{source.pk}/progress/").json()["status"] == "none"
    response = client.post(f"/admin/sources/source/{source.pk}/sync/")
    assert response.status_code == 302
    sync = SourceSync.objects.get(source=source)
    assert client.get(f"/admin/sources/source/{source.pk}/progress/").json()["status"] == "queued"
    assert sync_run(sync_id=sync.pk, claim_id="admin-test") == "done"
    ingest_pending(source)
    progress = client.get(f"/admin/sources/source/{source.pk}/progress/").json()
    assert progress["status"] == "done" and progress["done"] == progress["total"] == 4
    page = client.get(f"/admin/sources/source/{source.pk}/change/").content.decode()
    assert "4 new" in page and "guide/warranty.md" in page and "Ready" in page

    # A blank credential field keeps the stored value.
    client.post(
        f"/admin/sources/source/{source.pk}/change/",
        {
            "workspace": workspace.pk,
            "name": "Handbook",
            "kind": "git",
            "config": config,
            "bots": [bot.pk],
            "schedule_minutes": 60,
            "enabled": "on",
            "header_name": "",
            "header_value": "",
        },
    )
    source.refresh_from_db()
    assert source.schedule_minutes == 60
    assert source.credentials["header_value"] == "s3cret-value"


@pytest.mark.django_db
def test_another_workspace_sees_no_source(workspace, make_source) -> None:
    source = make_source(kind="git", config={"repository_url": "https://git.example.com/a.git"})
    other = Workspace.objects.create(name="other", slug=f"other-{uuid.uuid4().hex[:6]}")
    client = _owner_client(other)
    assert client.get(f"/admin/sources/source/{source.pk}/change/").status_code == 302
    assert client.get(f"/admin/sources/source/{source.pk}/progress/").status_code == 404
    assert client.post(f"/admin/sources/source/{source.pk}/sync/").status_code == 404
    assert not SourceSync.objects.filter(source=source).exists()
