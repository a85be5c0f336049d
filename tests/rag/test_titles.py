"""One title rule for every document (issue 51, finding 11): its first heading, else the format's own
title, else its file name, else its URL; the rule names an upload once its file is read, unless
someone gave the document a title."""

from __future__ import annotations

import io

import pytest
from django.core.files.base import ContentFile
from docx import Document as DocxDocument
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from core.models import Workspace
from rag.ingestion import document_ingest
from rag.models import Chunk, Document
from rag.parsing.titles import document_title
from rag.services import document_create, document_file_replace

pytestmark = pytest.mark.django_db

BODY = "Grease the zorblat's hinges every spring and check the seals for cracks before winter."


def _uploaded(
    workspace: Workspace, name: str, data: bytes | str, *, title: str = "", expect: str = "ready"
) -> Document:
    content = data.encode() if isinstance(data, str) else data
    document = document_create(
        workspace=workspace, file=ContentFile(content, name=name), title=title
    )
    assert document_ingest(document_id=str(document.pk), claim_id="claim-title") == expect
    document.refresh_from_db()
    return document


def _docx(*, core_title: str, heading: str = "") -> bytes:
    document = DocxDocument()
    document.core_properties.title = core_title
    if heading:
        document.add_heading(heading, level=1)
    document.add_paragraph(BODY)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def _pdf(*, metadata_title: str) -> bytes:
    """Body text only (one size: no line reads as a heading), and a title in its information."""
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4)
    pdf.setTitle(metadata_title)
    pdf.setFont("Helvetica", 11)
    pdf.drawString(72, 700, BODY[:60])
    pdf.drawString(72, 684, BODY[60:])
    pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def test_a_markdown_upload_is_titled_by_its_first_heading(workspace: Workspace) -> None:
    document = _uploaded(workspace, "zorblat.md", f"# Zorblat maintenance guide\n\n{BODY}\n")
    assert document.title == "Zorblat maintenance guide"
    chunk = Chunk.objects.get(document=document)
    assert chunk.heading_path == ["Zorblat maintenance guide"]


def test_html_takes_its_h1_then_its_title(workspace: Workspace) -> None:
    page = (
        "<html><head><title>Zorblat | Lumen shop</title></head><body><article>"
        "<h1>Caring for your zorblat</h1><p>{body}</p><p>{body}</p></article></body></html>"
    )
    with_h1 = _uploaded(workspace, "care.html", page.format(body=BODY))
    assert with_h1.title == "Caring for your zorblat"
    without_h1 = page.replace("<h1>Caring for your zorblat</h1>", "")
    assert _uploaded(workspace, "care2.html", without_h1.format(body=BODY)).title == (
        "Zorblat | Lumen shop"
    )


def test_a_docx_takes_its_heading_then_its_core_title(workspace: Workspace) -> None:
    headed = _docx(core_title="Service handbook", heading="Zorblat seals")
    assert _uploaded(workspace, "seals.docx", headed).title == "Zorblat seals"
    plain = _docx(core_title="Service handbook")
    assert _uploaded(workspace, "handbook_v2.docx", plain).title == "Service handbook"


def test_a_pdf_takes_its_metadata_title(workspace: Workspace) -> None:
    document = _uploaded(workspace, "scan-0042.pdf", _pdf(metadata_title="Zorblat storage manual"))
    assert document.title == "Zorblat storage manual"


def test_without_heading_or_own_title_the_file_name_names_it(workspace: Workspace) -> None:
    assert _uploaded(workspace, "winter_zorblat-care.txt", BODY).title == "winter zorblat care"
    assert _uploaded(workspace, "battery-notes.pdf", _pdf(metadata_title="untitled")).title == (
        "battery notes"
    )


def test_a_given_or_renamed_title_is_kept(workspace: Workspace) -> None:
    given = _uploaded(workspace, "zorblat.md", f"# Zorblat guide\n\n{BODY}\n", title="Our guide")
    assert given.title == "Our guide"
    followed = _uploaded(workspace, "z.md", f"# First heading\n\n{BODY}\n")
    assert followed.title == "First heading"
    # A new file: the title the rule gave follows it; a title someone set since stays.
    followed = _replaced(followed, "z2.md", f"# Second heading\n\n{BODY}\n")
    assert followed.title == "Second heading"
    Document.objects.filter(pk=followed.pk).update(title="Renamed by hand")
    assert _replaced(followed, "z3.md", f"# Third heading\n\n{BODY}\n").title == "Renamed by hand"
    # A file that failed keeps the file name's title until a readable one replaces it.
    broken = _uploaded(workspace, "broken.pdf", b"%PDF-1.4 nothing useful", expect="failed")
    assert broken.title == "broken"
    assert _replaced(broken, "fixed.md", f"# Fixed guide\n\n{BODY}\n").title == "Fixed guide"


def _replaced(document: Document, name: str, text: str) -> Document:
    document = document_file_replace(document=document, file=ContentFile(text.encode(), name=name))
    assert document_ingest(document_id=str(document.pk), claim_id=f"claim-{name}") == "ready"
    document.refresh_from_db()
    return document


def test_the_rule_in_order() -> None:
    assert document_title(heading="H", own_title="T", filename="f.md", url="https://x.org/p") == "H"
    assert document_title(own_title="T", filename="f.md", url="https://x.org/p") == "T"
    assert document_title(filename="my_notes-v2.md", url="https://x.org/p") == "my notes v2"
    assert document_title(url="https://help.example.org/guides/zorblat-care") == "zorblat care"
    assert document_title(url="https://help.example.org/") == "help.example.org"
    assert document_title(heading="  Two\n lines ", own_title="Microsoft Word - draft.docx") == (
        "Two lines"
    )
