"""The document admin: multi-file upload to a workspace and bots, the status column with its reason, re-run, delete."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from core.models import Membership, Workspace
from rag.ingestion import document_ingest
from rag.models import Chunk, Document
from rag.services import document_create
from rag.tasks import document_ingest_task


@pytest.fixture
def admin_client_for(db: None):
    def make(*, superuser: bool = True, workspace: Workspace | None = None) -> Client:
        user_model = get_user_model()
        name = f"user{user_model.objects.count()}"
        user = user_model.objects.create_user(
            name, password="pw-123-long", is_staff=True, is_superuser=superuser
        )
        if workspace is not None:
            Membership.objects.create(workspace=workspace, user=user, role=Membership.Role.OWNER)
        client = Client()
        client.force_login(user)
        return client

    return make


@pytest.mark.django_db
def test_upload_several_files_to_a_workspace_and_its_bots(
    admin_client_for, workspace, bot, django_capture_on_commit_callbacks, monkeypatch
) -> None:
    client = admin_client_for()
    page = client.get("/admin/rag/document/add/")
    assert page.status_code == 200 and b"multiple" in page.content
    uploads = [
        SimpleUploadedFile("a.txt", b"Alpha text."),
        SimpleUploadedFile("b.md", b"# B\n\nBeta text."),
    ]
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client.post(
            "/admin/rag/document/add/",
            {"workspace": workspace.pk, "bots": [bot.pk], "files": uploads},
        )
    assert response.status_code == 302, response.content.decode()[:2000]
    documents = Document.objects.filter(workspace=workspace)
    assert sorted(documents.values_list("filename", flat=True)) == ["a.txt", "b.md"]
    assert all(list(d.bots.all()) == [bot] for d in documents)
    sent: list[str] = []
    monkeypatch.setattr(
        document_ingest_task, "apply_async", lambda args, **options: sent.append(args[0])
    )
    for callback in callbacks:  # after commit: one ingestion message per file
        callback()
    assert sorted(sent) == sorted(str(d.pk) for d in documents)


@pytest.mark.django_db
def test_changelist_shows_status_with_reason_without_n_plus_one(
    admin_client_for, make_document, django_assert_max_num_queries
) -> None:
    bad = make_document("bad.exe", b"MZ")
    document_ingest(document_id=str(bad.pk), claim_id="c1")
    for n in range(5):
        make_document(f"ok{n}.txt", "Fine text.")
    client = admin_client_for()
    with django_assert_max_num_queries(12):
        page = client.get("/admin/rag/document/")
    body = page.content.decode()
    assert "Failed" in body and "are not supported" in body and body.count("Pending") >= 5


@pytest.mark.django_db
def test_rerun_and_delete_actions(
    admin_client_for, make_document, django_capture_on_commit_callbacks
) -> None:
    document = make_document("guide.txt", "The battery charges in four hours.")
    document_ingest(document_id=str(document.pk), claim_id="c1")
    document.refresh_from_db()
    stored = document.file.name
    assert document.status == "ready" and default_storage.exists(stored)
    client = admin_client_for()
    client.post(
        "/admin/rag/document/", {"action": "rerun_action", "_selected_action": [document.pk]}
    )
    document.refresh_from_db()
    assert document.status == "pending"
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            "/admin/rag/document/", {"action": "delete_action", "_selected_action": [document.pk]}
        )
    assert not Document.objects.filter(pk=document.pk).exists()
    assert not Chunk.objects.filter(document_id=document.pk).exists()
    assert not default_storage.exists(stored)  # the file goes too, once the deletion commits


@pytest.mark.django_db
def test_a_member_sees_only_their_workspaces_documents(
    admin_client_for, make_document, workspace
) -> None:
    mine = make_document("mine.txt", "Mine.")
    other = Workspace.objects.create(name="Other", slug="other")
    theirs = document_create(workspace=other, file=ContentFile(b"Theirs.", name="theirs.txt"))
    client = admin_client_for(superuser=False, workspace=workspace)
    user = get_user_model().objects.get(username__startswith="user")
    user.user_permissions.add(*Permission.objects.filter(codename__endswith="_document"))
    body = client.get("/admin/rag/document/").content.decode()
    assert mine.title in body and theirs.title not in body
    assert client.get(f"/admin/rag/document/{mine.pk}/change/").status_code == 200
    assert (
        client.get(f"/admin/rag/document/{theirs.pk}/change/").status_code == 302
    )  # "doesn't exist", as for a typo


@pytest.mark.django_db
def test_the_chunk_view_shows_the_highlighted_source_only_to_its_workspace(
    admin_client_for, workspace, make_document
) -> None:
    from PIL import Image

    from rag.preview import HIGHLIGHT_OUTLINE
    from tests.rag import media_files

    document = make_document(
        "scan.pdf", media_files.scanned_pdf_bytes(pages=[["Lumen frames carry ten years."]])
    )
    document_ingest(document_id=str(document.pk), claim_id="admin-preview")
    chunk = Chunk.objects.get(document=document)
    member = admin_client_for(superuser=False, workspace=workspace)
    page = member.get(f"/admin/rag/chunk/{chunk.pk}/change/")
    preview_url = f"/admin/rag/chunk/{chunk.pk}/preview.png"
    assert page.status_code == 200 and preview_url.encode() in page.content
    picture = member.get(preview_url)
    assert picture.status_code == 200 and picture["Content-Type"] == "image/png"
    image = Image.open(io.BytesIO(picture.content)).convert("RGB")
    assert HIGHLIGHT_OUTLINE in {pixel for pixel in image.getdata()}
    stranger = admin_client_for(
        superuser=False, workspace=Workspace.objects.create(name="other", slug="other")
    )
    assert stranger.get(preview_url).status_code == 404
