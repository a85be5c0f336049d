"""Reads over knowledge: a workspace's embedding and media models, documents and chunk counts, vector distance."""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.db.models import Q, QuerySet
from pgvector.django import CosineDistance
from pgvector.utils import HalfVector

from bots.models import Bot
from core.models import Workspace
from rag.models import (
    Chunk,
    Document,
    WorkspaceEmbedding,
    WorkspaceFusion,
    WorkspaceMediaModels,
    embedding_as,
    embedding_half,
)
from textmodels.embeddings import embedding_model_default, multilingual_model_default


def workspace_embedding_model(*, workspace_id: uuid.UUID | str) -> str:
    """The model every chunk of this workspace is (or is being) embedded with; search uses only this one."""
    chosen = WorkspaceEmbedding.objects.filter(workspace_id=workspace_id).values_list(
        "embedding_model", flat=True
    )
    return chosen.first() or embedding_model_default()


def workspace_multilingual_model(*, workspace_id: uuid.UUID | str) -> str:
    """The multilingual model of this workspace's second vectors ("" when it has none)."""
    chosen = WorkspaceEmbedding.objects.filter(workspace_id=workspace_id).values_list(
        "multilingual_model", flat=True
    )
    row = chosen.first()
    return row if row is not None else multilingual_model_default()


@dataclass(frozen=True)
class SearchSetup:
    """What a search of a workspace needs before it starts: its models and its calibrated fusion."""

    model_id: str
    multi_model_id: str  # "" when the workspace has no multilingual side
    method: str | None  # None: not calibrated for these models (the defaults apply)
    parameters: dict[str, Any]


def workspace_search_setup(*, workspace_id: uuid.UUID | str) -> SearchSetup:
    """The workspace's models and calibrated fusion in one query. The calibration counts only if it
    measured these very models. A fixed statement, not the ORM's: every search runs it, and compiling
    the annotated queryset cost far more CPU than the statement (docs/decisions/answer-path-cpu.md)."""
    with connection.cursor() as cursor:
        cursor.execute(_SEARCH_SETUP_SQL, {"workspace_id": str(workspace_id)})
        row = cursor.fetchone()
    model, multi, fusion_model, fusion_multi_model, fusion_method, fusion_parameters = (
        row or (None,) * 6
    )
    model_id = model or embedding_model_default()
    multi_model_id = multi if multi is not None else multilingual_model_default()
    if (
        not fusion_method
        or fusion_model != model_id
        or (fusion_multi_model or "") != multi_model_id
    ):
        return SearchSetup(model_id, multi_model_id, None, {})
    if isinstance(fusion_parameters, str):  # Django's PostgreSQL backend reads jsonb as text
        fusion_parameters = json.loads(fusion_parameters)
    return SearchSetup(model_id, multi_model_id, fusion_method, dict(fusion_parameters or {}))


# Both tables are keyed by the workspace (one row at most each); no row for the workspace: no row here.
_SEARCH_SETUP_SQL = f"""
SELECT e.embedding_model, e.multilingual_model, f.embedding_model, f.multilingual_model, f.method,
       f.parameters
FROM {Workspace._meta.db_table} AS w
LEFT JOIN {WorkspaceEmbedding._meta.db_table} AS e ON e.workspace_id = w.id
LEFT JOIN {WorkspaceFusion._meta.db_table} AS f ON f.workspace_id = w.id
WHERE w.id = %(workspace_id)s
"""  # noqa: S608 (table names from the models only)


def workspace_media_models(*, workspace_id: uuid.UUID | str) -> tuple[str, str]:
    """(vision model, transcription model) of the workspace; '' where it has none."""
    row = (
        WorkspaceMediaModels.objects.filter(workspace_id=workspace_id)
        .values_list("vision_model", "transcription_model")
        .first()
    )
    return (row[0].strip(), row[1].strip()) if row else ("", "")


def chunks_by_vector_distance(
    *, chunks: QuerySet[Chunk], model_id: str, query_vector: list[float]
) -> QuerySet[Chunk]:
    """Chunks of one model ordered by cosine distance to the query, through that dimension's partial HNSW index.

    The cast (`embedding::halfvec(N)`, the graph's half-precision copy) and the `embedding_dims` filter must
    match the index definition for PostgreSQL to use it; `distance` is the full-precision one. The shared
    graph holds the chunks with `shared_indexed` (migration 0019): `chunks` filtered on it can walk that
    graph, a workspace's own graph holds all of that workspace's chunks.
    """
    dims = len(query_vector)
    return (
        chunks.filter(embedding_model=model_id, embedding_dims=dims)
        .annotate(distance=CosineDistance(embedding_as(dims), query_vector))
        .order_by(CosineDistance(embedding_half(dims), HalfVector(query_vector)))
    )


def documents_for_workspace(*, workspace_id: uuid.UUID | str) -> QuerySet[Document]:
    return (
        Document.objects.filter(workspace_id=workspace_id)
        .prefetch_related("bots")
        .order_by("-created_at")
    )


def documents_progress(*, document_ids: Sequence[uuid.UUID]) -> list[Document]:
    """The listed documents' current state, in the given order (one query)."""
    by_id = {document.pk: document for document in Document.objects.filter(pk__in=document_ids)}
    return [by_id[document_id] for document_id in document_ids if document_id in by_id]


def workspace_get_by_reference(*, reference: str) -> Workspace | None:
    """A workspace by slug, name or id (for commands)."""
    query = Q(slug=reference) | Q(name=reference)
    if _is_uuid(reference):
        query |= Q(pk=reference)
    return Workspace.objects.filter(query).first()


def bot_get_by_reference(*, workspace: Workspace, reference: str) -> Bot | None:
    query = Q(name=reference)
    if _is_uuid(reference):
        query |= Q(pk=reference)
    return Bot.objects.filter(query, workspace=workspace).first()


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def chunks_quarantined_list(*, document_id: uuid.UUID | str) -> list[Chunk]:
    """The document's chunks the injection detector quarantined at ingestion, in document order."""
    return list(
        Chunk.objects.filter(document_id=document_id, quarantined=True)
        .only("id", "ordinal", "injection_score", "injection_label", "injection_excerpt")
        .order_by("ordinal")
    )
