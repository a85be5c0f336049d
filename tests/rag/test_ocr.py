"""OCR by default: scanned PDF pages and image documents become located chunks; bad images fail with a reason."""

from __future__ import annotations

import io
import re
import struct
import zlib

import pytest
from django.test import override_settings

from rag.ingestion import document_ingest
from rag.models import Chunk, Document
from tests.rag import files, media_files

LINES = [
    "Check the brake pads of your Lumen bike every three months.",
    "Replace the chain when it has stretched by half a percent.",
    "Charge the battery fully before a long ride in the mountains.",
]
FRENCH = [
    "La batterie du vélo se recharge en quatre heures.",
    "Vérifiez la pression des pneus chaque semaine.",
    "Rangez le vélo à l'abri de la pluie et du gel.",
]


def _ingest(document: Document) -> Document:
    document_ingest(document_id=str(document.pk), claim_id="claim-ocr")
    document.refresh_from_db()
    return document


def word_error_rate(reference: str, hypothesis: str) -> float:
    """Word-level edit distance over the reference's length (case and punctuation ignored)."""
    ref = re.findall(r"[\w']+", reference.lower())
    hyp = re.findall(r"[\w']+", hypothesis.lower())
    row = list(range(len(hyp) + 1))
    for i, word in enumerate(ref, start=1):
        previous, row[0] = row[0], i
        for j, other in enumerate(hyp, start=1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (word != other))
    return row[-1] / max(1, len(ref))


@pytest.mark.django_db
def test_a_scanned_pdf_is_ocrd_with_the_born_digital_pages_coordinates(make_document) -> None:
    scan = _ingest(make_document("scan.pdf", media_files.scanned_pdf_bytes(pages=[LINES])))
    digital = _ingest(make_document("digital.pdf", files.pdf_bytes(pages=[LINES], heading="")))
    assert scan.status == "ready", scan.error
    assert scan.metadata["ocr_pages"] == 1 and scan.language == "en"
    chunks = list(Chunk.objects.filter(document=scan).order_by("ordinal"))
    text = " ".join(chunk.text for chunk in chunks)
    assert word_error_rate(" ".join(LINES), text.replace("Service notice", "")) <= 0.05
    chunk = chunks[-1]
    assert chunk.page_number == 1 and [entry["page_number"] for entry in chunk.bbox] == [1]
    assert chunk.metadata["ocr"]["low_confidence"] is False
    assert chunk.metadata["ocr"]["confidence"] > 80
    # The OCR'd lines sit where the born-digital text of the same page sits, in PDF points.
    expected = Chunk.objects.get(document=digital).bbox[0]["bbox"]
    ocr_box = chunk.bbox[0]["bbox"]
    ocr_lines = [line for line in chunk.text.splitlines() if "Lumen" in line or "Charge" in line]
    assert ocr_lines, chunk.text
    assert abs(ocr_box[0] - expected[0]) < 3 and abs(ocr_box[3] - expected[3]) < 3
    assert abs(ocr_box[2] - expected[2]) < 6


@pytest.mark.django_db
def test_a_french_image_is_read_with_the_french_pack_and_located_in_pixels(make_document) -> None:
    document = _ingest(make_document("notice.png", media_files.text_image_bytes(lines=FRENCH)))
    assert document.status == "ready", document.error
    assert document.language == "fr"
    chunk = Chunk.objects.get(document=document)
    # Accents survive only when the second pass used tesseract-ocr-fra.
    assert "vélo" in chunk.text and "Vérifiez" in chunk.text
    assert word_error_rate(" ".join(FRENCH), chunk.text) <= 0.1
    assert chunk.metadata["modality"] == "image" and chunk.metadata["languages"] == ["fra"]
    x0, top, _x1, bottom = chunk.bbox[0]["bbox"]
    # text_image_bytes draws 40 px type from (60, 60), a line every 70 px.
    assert 50 <= x0 <= 70 and 55 <= top <= 80 and 60 + 70 * 2 + 30 <= bottom <= 60 + 70 * 3


@pytest.mark.django_db
@pytest.mark.parametrize(
    "suffix,image_format", [(".jpg", "JPEG"), (".webp", "WEBP"), (".tiff", "TIFF")]
)
def test_every_accepted_image_type_is_ocrd(make_document, suffix, image_format) -> None:
    data = media_files.text_image_bytes(lines=LINES[:1], image_format=image_format)
    document = _ingest(make_document("sheet" + suffix, data))
    assert document.status == "ready", document.error
    assert word_error_rate(LINES[0], Chunk.objects.get(document=document).text) <= 0.1


@pytest.mark.django_db
@override_settings(PARLEY_OCR_LOW_CONFIDENCE=99)
def test_low_confidence_ocr_is_marked_on_the_chunk(make_document) -> None:
    document = _ingest(make_document("faint.png", media_files.text_image_bytes(lines=LINES[:2])))
    chunk = Chunk.objects.get(document=document)
    assert chunk.metadata["ocr"]["low_confidence"] is True


def _png_header_only(width: int, height: int) -> bytes:
    """A tiny PNG that declares a huge canvas: an image bomb's header with a few bytes of data."""
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + header
    ihdr = struct.pack(">I", len(header)) + chunk + struct.pack(">I", zlib.crc32(chunk))
    data = zlib.compress(b"\x00" * 64)
    idat = (
        struct.pack(">I", len(data))
        + b"IDAT"
        + data
        + struct.pack(">I", zlib.crc32(b"IDAT" + data))
    )
    end = struct.pack(">I", 0) + b"IEND" + struct.pack(">I", zlib.crc32(b"IEND"))
    return b"\x89PNG\r\n\x1a\n" + ihdr + idat + end


def _truncated_jpeg() -> bytes:
    data = media_files.text_image_bytes(lines=LINES[:1], image_format="JPEG")
    return data[: len(data) // 3]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "name,data,code,phrase",
    [
        ("broken.jpg", lambda: _truncated_jpeg(), "corrupt_image", "damaged"),
        ("noise.png", lambda: b"\x89PNG\r\n\x1a\nnot really a png", "corrupt_image", "damaged"),
        ("bomb.png", lambda: _png_header_only(12_000, 12_000), "image_too_large", "image bomb"),
        ("huge.png", lambda: _png_header_only(100_000, 100_000), "image_too_large", "image bomb"),
        (
            "locked-scan.pdf",
            lambda: media_files.scanned_pdf_bytes(pages=[LINES], encrypt="s3cret"),
            "encrypted_pdf",
            "password",
        ),
    ],
)
def test_bad_images_and_locked_scans_fail_with_a_clear_reason_and_nothing_written(
    make_document, name, data, code, phrase
) -> None:
    document = _ingest(make_document(name, data()))
    assert (document.status, document.error_code) == ("failed", code)
    assert phrase in document.error.lower()
    assert not Chunk.objects.filter(document=document).exists() and document.chunk_count == 0


@pytest.mark.django_db
@override_settings(PARLEY_OCR_ENABLED=False)
def test_with_ocr_off_a_scan_still_fails_as_textless(make_document) -> None:
    document = _ingest(make_document("scan.pdf", media_files.scanned_pdf_bytes(pages=[LINES])))
    assert (document.status, document.error_code) == ("failed", "no_text")


def test_the_bomb_fixture_declares_its_size_without_pixels() -> None:
    from PIL import Image

    data = _png_header_only(12_000, 12_000)
    assert len(data) < 200 and Image.open(io.BytesIO(data)).size == (12_000, 12_000)
