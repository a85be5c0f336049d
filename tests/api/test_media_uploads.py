"""Uploads of images and recordings through the documents API and the ingest command: images are accepted
(OCR), recordings are refused with what to configure unless the workspace has a transcription model."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client

from rag.models import Document, WorkspaceMediaModels
from tests.api.factories import bearer, bot_make, server_key_make, workspace_make
from tests.rag import media_files

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    settings.MEDIA_ROOT = tmp_path / "media"
    return tmp_path


def _upload(headers: dict[str, str], *files: SimpleUploadedFile):  # type: ignore[no-untyped-def]
    return Client().post("/api/v1/documents", {"files": list(files)}, **headers)


def test_images_are_accepted_and_a_recording_without_transcription_is_refused_saying_what_to_do() -> (
    None
):
    workspace = workspace_make()
    raw, _ = server_key_make(workspace)
    image = media_files.text_image_bytes(lines=["Lumen frames carry ten years of warranty."])
    response = _upload(
        bearer(raw),
        SimpleUploadedFile("sheet.png", image),
        SimpleUploadedFile("sheet.webp", b"RIFF....WEBP"),
        SimpleUploadedFile("webinar.mp4", b"\x00\x00\x00\x18ftypmp42"),
    )
    assert response.status_code == 201, response.content
    by_name = {d["filename"]: d for d in response.json()["documents"]}
    assert by_name["sheet.png"]["status"] == by_name["sheet.webp"]["status"] == "pending"
    video = by_name["webinar.mp4"]
    assert video["status"] == "failed"
    refused = Document.objects.get(pk=video["id"])
    assert refused.error_code == "transcription_not_configured" and not refused.file
    assert "transcription model" in refused.error and "VTT/SRT" in refused.error


def test_with_a_transcription_model_a_recording_is_queued() -> None:
    workspace = workspace_make()
    WorkspaceMediaModels.objects.create(workspace=workspace, transcription_model="whisper-1")
    raw, _ = server_key_make(workspace)
    response = _upload(bearer(raw), SimpleUploadedFile("call.m4a", b"\x00\x00\x00\x18ftypM4A "))
    assert response.json()["documents"][0]["status"] == "pending"


def test_the_ingest_command_reads_images_from_folders(tmp_path: Path) -> None:
    bot = bot_make()
    folder = tmp_path / "scans"
    folder.mkdir()
    (folder / "notice.jpg").write_bytes(
        media_files.text_image_bytes(lines=["Charge the battery indoors."], image_format="JPEG")
    )
    (folder / "notes.bin").write_bytes(b"ignored")
    out = StringIO()
    call_command("ingest", str(folder), "--workspace", bot.workspace.slug, "--inline", stdout=out)
    document = Document.objects.get(workspace=bot.workspace)
    assert document.filename == "notice.jpg" and document.status == "ready", document.error
    assert document.chunks.get().text.startswith("Charge the battery")
