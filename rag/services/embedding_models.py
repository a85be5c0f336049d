"""A workspace's embedding models switched, its documents re-embedded in the background."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction

from core.models import Workspace
from rag.models import Document, WorkspaceEmbedding
from rag.selectors import (
    workspace_embedding_model,
    workspace_multilingual_model,
)
from rag.services.changes import document_rerun


def workspace_embedding_model_set(
    *, workspace: Workspace, embedding_model: str, multilingual_model: str | None = None
) -> int:
    """Switch a workspace's embedding model and re-embed its documents in the background; returns how many.

    `multilingual_model` (None: unchanged; "" none): the model of every chunk's second vector. Switching
    only that one keeps the documents and recomputes that vector in the background
    (`rag.embeddings.backfill`); search reads only vectors tagged with the current model meanwhile."""
    from rag.embeddings.backfill import chunks_multilingual_backfill_queue
    from rag.passages.backfill import chunks_passages_backfill_queue
    from textmodels.embeddings import LOCAL_MODEL_ID, MULTI_MODELS

    kind, _, name = embedding_model.partition("/")
    if embedding_model != LOCAL_MODEL_ID and not (kind == "openai" and name):
        message = f"Unknown embedding model {embedding_model!r}: use {LOCAL_MODEL_ID!r} or 'openai/<model>'."
        raise ValidationError(message)
    if multilingual_model and multilingual_model not in MULTI_MODELS:
        choices = ", ".join(repr(model) for model in MULTI_MODELS)
        raise ValidationError(
            f"Unknown multilingual model {multilingual_model!r}: use {choices} or ''."
        )
    with transaction.atomic():
        current_multi = workspace_multilingual_model(workspace_id=workspace.pk)
        multi = current_multi if multilingual_model is None else multilingual_model
        if multi != current_multi:
            WorkspaceEmbedding.objects.update_or_create(
                workspace=workspace,
                defaults={
                    "embedding_model": workspace_embedding_model(workspace_id=workspace.pk),
                    "multilingual_model": multi,
                },
            )
            chunks_multilingual_backfill_queue(workspace_id=workspace.pk)
            # The chunks' passages carry that model's vectors too (rag.passages.backfill).
            chunks_passages_backfill_queue(workspace_id=workspace.pk)
        if workspace_embedding_model(workspace_id=workspace.pk) == embedding_model:
            return 0
        WorkspaceEmbedding.objects.update_or_create(
            workspace=workspace,
            defaults={"embedding_model": embedding_model, "multilingual_model": multi},
        )
        ready = Document.objects.filter(workspace=workspace, status=Document.Status.READY)
        document_ids = list(ready.values_list("pk", flat=True))
        for document_id in document_ids:
            document_rerun(document_id=document_id, force=False)
    return len(document_ids)
