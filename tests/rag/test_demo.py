"""The demo knowledge base: mixed formats (PDF, a scan, a figure, CSV FAQ, subtitles...), loaded once, all ingest."""

from __future__ import annotations

import pytest

from rag.demo_content import DEMO_FILES, demo_documents_ensure
from rag.ingestion import document_ingest
from rag.models import Chunk, Document


@pytest.mark.django_db
def test_demo_documents_load_once_and_ingest_with_locations(workspace, bot) -> None:
    documents = demo_documents_ensure(workspace=workspace, bots=[bot])
    assert demo_documents_ensure(workspace=workspace, bots=[bot]) == documents  # idempotent
    assert Document.objects.filter(workspace=workspace).count() == len(DEMO_FILES) == 7
    for document in documents:
        document_ingest(document_id=str(document.pk), claim_id="demo")
        document.refresh_from_db()
        assert document.status == "ready", (document.filename, document.error)
        assert list(document.bots.all()) == [bot]
    pdf = Chunk.objects.filter(document__filename="battery-and-charging.pdf")
    assert set(pdf.values_list("page_number", flat=True)) == {1, 2}
    assert all(chunk.bbox for chunk in pdf)
    storage = pdf.get(text__contains="Do not charge a battery below 0 degrees")
    assert storage.heading_path[-1] == "Storage and winter" and storage.page_number == 2
    faq = Chunk.objects.filter(document__filename="returns-and-refunds-faq.csv")
    assert faq.count() == 8 and faq.first().text.startswith("question: ")
    video = Chunk.objects.filter(document__filename="battery-care-video.vtt").order_by("ordinal")
    assert video.first().start_time == 0.0 and video.last().end_time == 70.0
    html = Chunk.objects.filter(document__filename="warranty-and-repairs.html")
    assert any("| Battery |" in chunk.text for chunk in html)
    assert not html.filter(text__contains="Newsletter").exists()
    # The scanned notice is read by OCR, located on its page; the service sheet's chart is a figure.
    scan = Chunk.objects.filter(document__filename="battery-connector-notice.pdf")
    clamp = scan.get(text__contains="LC3-24")
    assert clamp.page_number == 1 and clamp.bbox and not clamp.metadata["ocr"]["low_confidence"]
    figure = Chunk.objects.get(
        document__filename="service-intervals.pdf", metadata__modality="image"
    )
    assert "Brake pads" in figure.text and figure.page_number == 1 and figure.bbox
