"""GET /api/v1/chunks/{id}/preview: the highlighted page region of PDF and image sources, its access (the chunk's
scope and choke point), its cache and the cache's invalidation on re-ingestion."""

from __future__ import annotations

import io
import json
import uuid

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.test import Client
from PIL import Image

from rag.ingestion import document_ingest
from rag.models import Chunk, Document
from rag.preview import HIGHLIGHT_OUTLINE
from rag.services import document_create, document_rerun
from tests.api.factories import bearer, bot_make, server_key_make, workspace_make
from tests.rag import media_files

pytestmark = pytest.mark.django_db

LINES = [
    "Check the brake pads of your Lumen bike every three months.",
    "Replace the chain when it has stretched by half a percent.",
]


def _ingested(bot, name: str, data: bytes) -> Document:
    document = document_create(
        workspace=bot.workspace, file=ContentFile(data, name=name), bots=[bot]
    )
    assert document_ingest(document_id=str(document.pk), claim_id=uuid.uuid4().hex) == "ready"
    document.refresh_from_db()
    return document


def highlight_box(png: bytes) -> tuple[int, int, int, int]:
    """The bounding box, in the PNG's pixels, of every pixel of the highlight's outline colour."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    mask = Image.new("L", image.size, 0)
    mask.putdata([255 if pixel == HIGHLIGHT_OUTLINE else 0 for pixel in image.getdata()])
    box = mask.getbbox()
    assert box is not None, "no highlight in the preview"
    return box


def _to_source(box: tuple[int, int, int, int], region: dict) -> list[float]:
    scale, (x0, top, _, _) = region["scale"], region["box"]
    return [x0 + box[0] / scale, top + box[1] / scale, x0 + box[2] / scale, top + box[3] / scale]


@pytest.fixture
def shop():
    bot = bot_make()
    raw, _ = server_key_make(bot.workspace)
    return bot, raw


def test_a_scanned_pdf_chunk_previews_its_page_region_with_the_lines_highlighted(shop) -> None:
    bot, raw = shop
    document = _ingested(bot, "scan.pdf", media_files.scanned_pdf_bytes(pages=[LINES]))
    chunk = Chunk.objects.get(document=document)
    response = Client().get(f"/api/v1/chunks/{chunk.pk}/preview", **bearer(raw))
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    region = json.loads(response["X-Parley-Preview-Region"])
    assert region["page_number"] == 1 and region["scale"] == 2.0
    found = _to_source(highlight_box(response.content), region)
    expected = chunk.bbox[0]["bbox"]
    # The outline is drawn just outside the boxes (3 px at 2 px per point).
    assert all(abs(a - b) <= 3.5 for a, b in zip(found, expected, strict=True)), (found, expected)


def test_an_image_document_previews_in_its_own_pixels(shop) -> None:
    bot, raw = shop
    document = _ingested(bot, "note.png", media_files.text_image_bytes(lines=LINES))
    chunk = Chunk.objects.get(document=document)
    response = Client().get(f"/api/v1/chunks/{chunk.pk}/preview", **bearer(raw))
    region = json.loads(response["X-Parley-Preview-Region"])
    found = _to_source(highlight_box(response.content), region)
    assert all(abs(a - b) <= 4 for a, b in zip(found, chunk.bbox[0]["bbox"], strict=True))


def test_the_preview_has_the_chunks_scope_and_access_and_text_has_none(shop) -> None:
    bot, raw = shop
    document = _ingested(bot, "scan.pdf", media_files.scanned_pdf_bytes(pages=[LINES]))
    url = f"/api/v1/chunks/{Chunk.objects.get(document=document).pk}/preview"
    client = Client()
    stranger, _ = server_key_make(workspace_make())
    missing = client.get(f"/api/v1/chunks/{uuid.uuid4()}/preview", **bearer(raw))
    foreign = client.get(url, **bearer(stranger))
    assert missing.status_code == foreign.status_code == 404
    assert missing.json() == foreign.json()
    chat_only, _ = server_key_make(bot.workspace, scopes=("chat",))
    assert client.get(url, **bearer(chat_only)).json()["code"] == "insufficient_scope"
    text = _ingested(bot, "guide.md", b"# Guide\n\nA day rental costs 25 euros with a helmet.")
    none = client.get(f"/api/v1/chunks/{text.chunks.get().pk}/preview", **bearer(raw))
    assert none.status_code == 404 and none.json()["extra"] == {"reason": "no_preview"}


def test_the_preview_is_cached_and_dropped_when_the_document_is_ingested_again(
    shop, django_capture_on_commit_callbacks
) -> None:
    bot, raw = shop
    document = _ingested(bot, "scan.pdf", media_files.scanned_pdf_bytes(pages=[LINES]))
    chunk = Chunk.objects.get(document=document)
    client = Client()
    first = client.get(f"/api/v1/chunks/{chunk.pk}/preview", **bearer(raw))
    folder = f"previews/{document.pk}"
    (cached,) = default_storage.listdir(folder)[1]
    again = client.get(f"/api/v1/chunks/{chunk.pk}/preview", **bearer(raw))
    assert again.content == first.content
    assert again["X-Parley-Preview-Region"] == first["X-Parley-Preview-Region"]
    assert cached.startswith(str(chunk.pk))
    assert document_rerun(document_id=document.pk)
    with django_capture_on_commit_callbacks(execute=True):
        assert document_ingest(document_id=str(document.pk), claim_id="again") == "ready"
    assert default_storage.listdir(folder)[1] == []
    assert not Chunk.objects.filter(pk=chunk.pk).exists()
