"""Document admin: multi-file upload to a workspace and its bots, a status column that says why, re-run and delete;
the chunk admin with its highlighted source preview; the workspace's embedding and media models."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html

from core.admin_scoping import WorkspaceListFilter, WorkspaceScopedAdmin, workspace_scope
from core.models import Workspace
from rag.forms import DocumentChangeForm, DocumentUploadForm
from rag.models import Chunk, Document, WorkspaceEmbedding, WorkspaceMediaModels
from rag.preview import PreviewUnavailable, chunk_preview
from rag.services import (
    NewFile,
    document_delete,
    document_file_replace,
    document_rerun,
    documents_create,
    workspace_embedding_model_set,
)

STATUS_COLOURS = {
    "pending": "#777",
    "processing": "#b7791f",
    "ready": "#2f855a",
    "failed": "#c53030",
}


def _workspaces_for(request: HttpRequest) -> QuerySet[Workspace]:
    return workspace_scope(Workspace.objects.all(), user=request.user, lookup="pk")


@admin.register(Document)
class DocumentAdmin(WorkspaceScopedAdmin):
    form = DocumentChangeForm
    list_display = [
        "title",
        "workspace",
        "status_column",
        "progress",
        "chunk_count",
        "language",
        "updated_at",
    ]
    list_filter = ["status", WorkspaceListFilter]
    search_fields = ["title", "filename"]
    list_select_related = ["workspace"]
    actions = ["rerun_action", "delete_action"]
    readonly_fields = [
        "workspace",
        "filename",
        "mime_type",
        "size_bytes",
        "checksum",
        "language",
        "embedding_model",
        "status",
        "error_code",
        "error",
        "progress",
        "chunk_count",
        "attempts",
        "created_at",
        "queued_at",
        "started_at",
        "finished_at",
        "conversation",
    ]

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # ours deletes files too, through the service
        return actions

    @admin.display(description="status", ordering="status")
    def status_column(self, document: Document) -> str:
        colour = STATUS_COLOURS.get(document.status, "#777")
        label = document.get_status_display()
        if document.status == Document.Status.PROCESSING:
            label = f"{label} {document.progress}%"
        if document.error:
            return format_html(
                '<b style="color:{}">{}</b><br><small>{}</small>', colour, label, document.error
            )
        return format_html('<b style="color:{}">{}</b>', colour, label)

    @admin.action(description="Re-run ingestion of the selected documents", permissions=["change"])
    def rerun_action(self, request: HttpRequest, queryset: QuerySet[Document]) -> None:
        queued = sum(document_rerun(document_id=pk) for pk in queryset.values_list("pk", flat=True))
        self.message_user(request, f"{queued} document(s) queued again.", messages.SUCCESS)

    @admin.action(
        description="Delete the selected documents, their chunks and files", permissions=["delete"]
    )
    def delete_action(self, request: HttpRequest, queryset: QuerySet[Document]) -> None:
        ids = list(queryset.values_list("pk", flat=True))
        for pk in ids:
            document_delete(document_id=pk)
        self.message_user(request, f"{len(ids)} document(s) deleted.", messages.SUCCESS)

    def delete_model(self, request: HttpRequest, obj: Document) -> None:
        document_delete(document_id=obj.pk)

    def save_model(self, request: HttpRequest, obj: Document, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        replacement = form.cleaned_data.get("replace_file")
        if replacement:
            document_file_replace(document=obj, file=replacement)

    def add_view(
        self, request: HttpRequest, form_url: str = "", extra_context: Any = None
    ) -> HttpResponse:
        """The add page is a multi-file upload: one document per file."""
        workspaces = _workspaces_for(request)
        form = DocumentUploadForm(
            request.POST or None, request.FILES or None, workspaces=workspaces
        )
        if request.method == "POST" and form.is_valid():
            documents = documents_create(
                workspace=form.cleaned_data["workspace"],
                bots=form.cleaned_data["bots"],
                files=[NewFile(file=upload) for upload in form.cleaned_data["files"]],
            )
            refused = [d for d in documents if d.status == Document.Status.FAILED]
            queued = len(documents) - len(refused)
            self.message_user(
                request,
                f"{queued} document(s) uploaded and queued for ingestion.",
                messages.SUCCESS,
            )
            for document in refused:  # too large, or a recording with no transcription model
                self.message_user(request, f"{document.filename}: {document.error}", messages.ERROR)
            return HttpResponseRedirect(reverse("admin:rag_document_changelist"))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Upload documents",
            "form": form,
            "has_view_permission": self.has_view_permission(request),
        }
        return TemplateResponse(request, "admin/rag/document/upload.html", context)


@admin.register(WorkspaceEmbedding)
class WorkspaceEmbeddingAdmin(admin.ModelAdmin):
    list_display = ["workspace", "embedding_model", "updated_at"]

    def save_model(
        self, request: HttpRequest, obj: WorkspaceEmbedding, form: Any, change: bool
    ) -> None:
        count = workspace_embedding_model_set(
            workspace=obj.workspace, embedding_model=obj.embedding_model
        )
        self.message_user(
            request, f"{count} document(s) are being re-embedded with {obj.embedding_model}."
        )


@admin.register(Chunk)
class ChunkAdmin(WorkspaceScopedAdmin):
    """Read-only chunks, each with the picture the widget shows: its page region, highlighted."""

    list_display = ["__str__", "document", "ordinal", "page_number", "modality", "token_count"]
    list_select_related = ["document"]
    list_filter = [WorkspaceListFilter]
    search_fields = ["text", "document__title"]
    fields = (
        "document",
        "ordinal",
        "source_preview",
        "text",
        "heading_path",
        "page_number",
        "bbox",
        "start_time",
        "end_time",
        "metadata",
        "token_count",
        "embedding_model",
    )
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="Modality")
    def modality(self, chunk: Chunk) -> str:
        return str((chunk.metadata or {}).get("modality", "text"))

    @admin.display(description="Where it sits")
    def source_preview(self, chunk: Chunk) -> str:
        if chunk.start_time is not None:
            return f"{chunk.start_time:.1f} s – {(chunk.end_time or chunk.start_time):.1f} s"
        if chunk.page_number is None and not (chunk.metadata or {}).get("image"):
            return "—"
        url = reverse("admin:rag_chunk_preview", args=[chunk.pk])
        return format_html(
            '<img src="{}" alt="Page {} of the source, the passage highlighted"'
            ' style="max-width:640px;border:1px solid #ccc">',
            url,
            chunk.page_number or "",
        )

    def get_urls(self) -> list[URLPattern]:
        preview = self.admin_site.admin_view(self.preview_view)
        return [
            path("<uuid:chunk_id>/preview.png", preview, name="rag_chunk_preview"),
            *super().get_urls(),
        ]

    def preview_view(self, request: HttpRequest, chunk_id: str) -> HttpResponse:
        chunk = self.get_queryset(request).filter(pk=chunk_id).first()
        if chunk is None or not self.has_view_permission(request, chunk):
            raise Http404("No such chunk.")
        try:
            preview = chunk_preview(chunk=chunk)
        except PreviewUnavailable as exc:
            raise Http404(str(exc)) from exc
        return HttpResponse(preview.png, content_type="image/png")


@admin.register(WorkspaceMediaModels)
class WorkspaceMediaModelsAdmin(admin.ModelAdmin):
    list_display = ["workspace", "vision_model", "transcription_model", "updated_at"]
