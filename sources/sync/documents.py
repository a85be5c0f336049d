"""A page's document through rag's own services: a new page becomes a pending document (queued for
ingestion, its bots the source's), a changed one is replaced while its old chunks keep answering, a
retired or skipped one is deleted with its chunks in one transaction."""

from __future__ import annotations

import uuid

from django.core.files.base import ContentFile

from rag.ingestion.replace import document_content_replace
from rag.models import Document
from rag.services import NewFile, document_delete, document_file_replace, documents_create
from sources.kinds.base import Fetched
from sources.models import Source


def page_content(fetched: Fetched) -> tuple[bytes, str]:
    """What the parsers read: the fetched file, or the extracted text as Markdown when the kind gave
    no file."""
    if fetched.content and fetched.filename:
        return fetched.content, fetched.filename
    return fetched.text.encode(), "page.md"


def page_document_create(*, source: Source, url: str, fetched: Fetched) -> Document:
    """A pending document for a new page, queued after commit; keyed by its canonical URL."""
    content, filename = page_content(fetched)
    new = NewFile(
        file=ContentFile(content, name=filename),
        filename=filename,
        title=fetched.title,
        source_url=url,
    )
    return documents_create(workspace=source.workspace, files=[new], bots=source.bots.all())[0]


def page_document_replace(*, document_id: uuid.UUID, fetched: Fetched) -> None:
    """The page's new content in place of the old: swapped in one transaction when its document is
    ready; otherwise (still pending, or failed) its ingestion simply starts over with the new file."""
    content, filename = page_content(fetched)
    if document_content_replace(
        document_id=str(document_id), content=content, filename=filename, title=fetched.title
    ):
        return
    document = Document.objects.filter(pk=document_id).first()
    if document is not None:
        document_file_replace(
            document=document, file=ContentFile(content, name=filename), filename=filename
        )


def page_document_delete(*, document_id: uuid.UUID) -> None:
    document_delete(document_id=str(document_id))
