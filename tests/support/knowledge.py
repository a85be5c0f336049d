"""Documents ingested synchronously (the real ingestion service, no worker) for retrieval and pipeline tests."""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from django.core.files.base import ContentFile

from bots.models import Bot
from core.models import Workspace
from rag.ingestion import document_ingest
from rag.models import Document
from rag.retrieval.sql import HybridParams
from rag.services import document_create
from tests.support.processes import wait_for
from textmodels.embeddings import LOCAL_MODEL_ID, MULTI_MODEL_ID, embed_query


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
    document_ingested_ready(document)
    return document


def document_ingested_ready(document: Document) -> None:
    """Ingest an existing document here, or wait for the worker that got to it first; it ends ready."""
    outcome = document_ingest(document_id=str(document.pk), claim_id=f"test-{uuid.uuid4().hex[:8]}")
    if outcome in ("not_claimed", "skipped"):
        # In a transactional test the commit also queued the real task, and a running test worker
        # may have claimed (or finished) the document first: wait for its result instead.
        wait_for(
            lambda: Document.objects.filter(pk=document.pk, status=Document.Status.READY).exists(),
            timeout=60,
            what=f"the worker to ingest {document.filename}",
        )
    else:
        assert outcome == "ready", outcome
    document.refresh_from_db()


def batch_embedding_wait(ids: Iterable[uuid.UUID | str], *, timeout: float = 90) -> None:
    """Wait until a worker's batch is embedding: two or more of the documents under one claim, one of
    them past parsing (the moment a fault test kills the worker)."""
    pks = list(ids)

    def embedding() -> bool:
        rows = list(
            Document.objects.filter(pk__in=pks, status="processing").values_list(
                "claim_id", "progress"
            )
        )
        claims = [claim for claim, _ in rows]
        return any(progress > 15 and claims.count(claim) >= 2 for claim, progress in rows)

    wait_for(embedding, timeout=timeout, interval=0.05, what="a batch of documents to embed")


def hybrid_params(
    *, workspace: Workspace, bot: Bot, question: str, multilingual: bool = False
) -> HybridParams:
    """The hybrid statement's parameters for one bot's question, at the product's default fusion
    (`multilingual`: with the multilingual side at its default weight, 0.5)."""
    multi = (
        {
            "multi_model_id": MULTI_MODEL_ID,
            "multi_embedding": embed_query(question, model_id=MULTI_MODEL_ID),
            "multi_weight": 0.5,
        }
        if multilingual
        else {}
    )
    return HybridParams(
        workspace_id=str(workspace.pk),
        model_id=LOCAL_MODEL_ID,
        query_text=question,
        query_embedding=embed_query(question),
        bot_ids=[str(bot.pk)],
        conversation_id=None,
        external_user_id="",
        document_ids=None,
        vector_weight=1.0,
        text_weight=0.5,
        rrf_k=10.0,
        candidates=40,
        pool=20,
        **multi,
    )
