"""Documents ingested synchronously (the real ingestion service, no worker) for retrieval and pipeline tests."""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from django.core.files.base import ContentFile

from bots.models import Bot
from core.models import Workspace
from rag.ingestion import document_ingest
from rag.models import Document
from rag.services import document_create


def document_ingested(
    *,
    workspace: Workspace,
    text: str,
    filename: str = "notes.md",
    bots: Iterable[Bot] = (),
    conversation_id: uuid.UUID | None = None,
    external_user_id: str = "",
) -> Document:
    document = document_create(
        workspace=workspace,
        file=ContentFile(text.encode(), name=filename),
        bots=list(bots),
        conversation_id=conversation_id,
        external_user_id=external_user_id,
    )
    assert document_ingest(document_id=str(document.pk), claim_id=f"test-{uuid.uuid4().hex[:8]}") == "ready"
    document.refresh_from_db()
    return document
