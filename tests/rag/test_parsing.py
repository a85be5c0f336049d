"""Each format parses into located, titled blocks, and chunking keeps headings, tables' headers and locations."""

from __future__ import annotations

from rag.chunking import chunks_build
from rag.parsing import document_parse
from tests.rag import files


def _chunks(name: str, data: bytes | str, *, size: int = 200, overlap: int = 30):
    raw = data.encode() if isinstance(data, str) else data
    parsed = document_parse(data=raw, filename=name)
    return parsed, chunks_build(blocks=parsed.blocks, title="Doc", size=size, overlap=overlap)


def test_markdown_keeps_heading_path_and_table_header_on_every_split() -> None:
    _, chunks = _chunks("orders.md", files.MARKDOWN, size=14, overlap=0)
    table_chunks = [
        chunk for chunk in chunks if "| France" in chunk.text or "| Belgium" in chunk.text
    ]
    assert len(table_chunks) == 2  # the table was split...
    assert all(
        chunk.text.startswith("| Country | Days |") for chunk in table_chunks
    )  # ...and kept its header
    assert all(chunk.heading_path == ["Orders", "Delivery times"] for chunk in table_chunks)
    assert chunks[0].embed_text.startswith("Doc › Orders › Delivery times")


def test_html_keeps_the_article_and_drops_navigation_and_footer() -> None:
    parsed, chunks = _chunks("returns.html", files.HTML)
    text = " ".join(chunk.text for chunk in chunks)
    assert "thirty days" in text and "prepaid shipping label" in text
    assert "Cookie settings" not in text and "Log in" not in text
    assert parsed.heading == "Returns policy"


def test_pdf_chunks_carry_page_and_one_bbox_per_page_they_span() -> None:
    data = files.pdf_bytes(
        pages=[["First page line one.", "First page line two."], ["Second page line."]]
    )
    _, chunks = _chunks("battery.pdf", data)
    assert len(chunks) == 1
    chunk = chunks[0]
    assert chunk.page_number == 1
    assert [entry["page_number"] for entry in chunk.bbox] == [1, 2]
    x0, top, x1, bottom = chunk.bbox[0]["bbox"]
    # reportlab drew line one at y=700 from the bottom: pdfplumber's top is measured from the top edge.
    assert x0 == 72 and 0 < top < files.PAGE_HEIGHT - 700 + 1 < bottom and x1 > x0
    assert chunk.heading_path == ["Battery care"]


def test_small_chunks_overlap_and_a_long_pdf_spans_pages() -> None:
    lines = [f"Sentence number {n} about charging the battery safely." for n in range(60)]
    _, chunks = _chunks(
        "long.pdf", files.pdf_bytes(pages=[lines[:40], lines[40:]]), size=64, overlap=16
    )
    assert len(chunks) > 3
    assert any(len(chunk.bbox) == 2 for chunk in chunks)  # some chunk crosses the page break
    first_lines, second_lines = chunks[0].text.splitlines(), chunks[1].text.splitlines()
    assert second_lines[0] in first_lines  # overlap: the second chunk repeats the first one's tail
    assert all(chunk.token_count <= 64 + 20 for chunk in chunks)


def test_docx_headings_and_table_rows_with_header() -> None:
    parsed, chunks = _chunks("warranty.docx", files.docx_bytes())
    assert parsed.heading == "Warranty guide"
    table = next(chunk for chunk in chunks if "Frame" in chunk.text)
    assert table.text.startswith("| Part | Years |") and "| Motor | 2 |" in table.text
    assert table.heading_path == ["Warranty guide", "Parts covered"]


def test_csv_gives_one_chunk_per_row_with_header_names() -> None:
    _, chunks = _chunks("faq.csv", files.CSV)
    assert [chunk.text.splitlines()[0] for chunk in chunks] == [
        "question: How long is the warranty?",
        "question: Can I ride in the rain?",
    ]
    assert chunks[1].text.endswith("answer: Yes, the motor and battery are sealed against rain.")


def test_subtitles_carry_start_and_end_times() -> None:
    parsed, vtt = _chunks("video.vtt", files.VTT, size=20, overlap=0)
    assert parsed.modality == "video"
    assert (vtt[0].start_time, vtt[-1].end_time) == (1.0, 65.25)
    assert all(chunk.page_number is None and chunk.bbox == [] for chunk in vtt)
    _, srt = _chunks("repair.srt", files.SRT)
    assert (srt[0].start_time, srt[0].end_time) == (2.0, 8.75)
