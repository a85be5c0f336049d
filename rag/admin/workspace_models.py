"""The workspace's models: the embedding model (saving it re-embeds every document) and the vision and
transcription models media documents need."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from rag.models import WorkspaceEmbedding, WorkspaceMediaModels
from rag.services import workspace_embedding_model_set


@admin.register(WorkspaceEmbedding)
class WorkspaceEmbeddingAdmin(admin.ModelAdmin[WorkspaceEmbedding]):
    list_display = ["workspace", "embedding_model", "multilingual_model", "updated_at"]

    def save_model(
        self, request: HttpRequest, obj: WorkspaceEmbedding, form: Any, change: bool
    ) -> None:
        count = workspace_embedding_model_set(
            workspace=obj.workspace,
            embedding_model=obj.embedding_model,
            multilingual_model=obj.multilingual_model,
        )
        self.message_user(
            request, f"{count} document(s) are being re-embedded with {obj.embedding_model}."
        )


@admin.register(WorkspaceMediaModels)
class WorkspaceMediaModelsAdmin(admin.ModelAdmin[WorkspaceMediaModels]):
    list_display = ["workspace", "vision_model", "transcription_model", "updated_at"]
