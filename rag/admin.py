"""Document admin: multi-file upload to a workspace and its bots, a status column that says why, re-run and delete,
and the chunks quarantined as injections, each with a release button; the chunk admin with its highlighted
source preview; the workspace's embedding and media models and its fusion calibration (a section of the
workspace's page, a Recalibrate button, a list)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join
from django.views.decorators.http import require_POST

from core.admin import workspace_admin_panel_register
from core.admin_scoping import WorkspaceListFilter, WorkspaceScopedAdmin, workspace_scope
from core.models import Workspace
from rag.forms import DocumentChangeForm, DocumentUploadForm
from rag.models import Chunk, Document, WorkspaceEmbedding, WorkspaceFusion, WorkspaceMediaModels
from rag.preview import PreviewUnavailable, chunk_preview
from rag.retrieval.calibration.service import workspace_fusion_request
from rag.retrieval.fusion import FusionChoice
from rag.retrieval.service import fusion_default
from rag.selectors import chunks_quarantined_list
from rag.services import (
    NewFile,
    chunk_release,
    document_delete,
    document_file_replace,
    document_rerun,
    documents_create,
    workspace_embedding_model_set,
)


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
        "quarantined_chunks",
    ]

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # ours deletes files too, through the service
        return actions

    @admin.display(description="status", ordering="status")
    def status_column(self, document: Document) -> str:
        # Coloured by class (templates admin/rag/document/change_list.html and change_form.html): the
        # Content-Security-Policy refuses inline style attributes.
        label = document.get_status_display()
        if document.status == Document.Status.PROCESSING:
            label = f"{label} {document.progress}%"
        status = format_html(
            '<b class="document-status document-status-{}">{}</b>', document.status, label
        )
        if document.error:
            return format_html("{}<br><small>{}</small>", status, document.error)
        return status

    @admin.display(description="quarantined chunks (injection detector)")
    def quarantined_chunks(self, document: Document) -> str:
        """Chunks left out of retrieval; each button releases one (it submits to the release URL)."""
        chunks = chunks_quarantined_list(document_id=document.pk) if document.pk else []
        if not chunks:
            return "None"
        rows = format_html_join(
            "",
            "<tr><td>#{}</td><td>{}</td><td>{}</td><td>{}</td><td><button type='submit'"
            " formaction='{}' formmethod='post' class='button' name='_release'>Release</button>"
            "</td></tr>",
            (
                (
                    chunk.ordinal,
                    chunk.injection_label,
                    f"{chunk.injection_score:.2f}",
                    chunk.injection_excerpt,
                    reverse("admin:rag_document_chunk_release", args=[document.pk, chunk.pk]),
                )
                for chunk in chunks
            ),
        )
        return format_html(
            "<table class='quarantined-chunks'><tr><th>chunk</th><th>cue</th><th>score</th>"
            "<th>excerpt</th><th></th></tr>{}</table>",
            rows,
        )

    def get_urls(self) -> list[URLPattern]:
        release = self.admin_site.admin_view(require_POST(self.chunk_release_view))
        return [
            path(
                "<path:object_id>/chunks/<uuid:chunk_id>/release/",
                release,
                name="rag_document_chunk_release",
            ),
            *super().get_urls(),
        ]

    def chunk_release_view(
        self, request: HttpRequest, object_id: str, chunk_id: str
    ) -> HttpResponse:
        document = self.get_object(request, object_id)  # scoped to the user's workspaces
        if document is None:
            raise Http404("No such document.")
        if not self.has_change_permission(request, document):
            raise PermissionDenied
        if chunk_release(document_id=document.pk, chunk_id=chunk_id):
            self.message_user(request, "The chunk is back in retrieval.", messages.SUCCESS)
        else:
            self.message_user(request, "That chunk was not quarantined.", messages.WARNING)
        return HttpResponseRedirect(reverse("admin:rag_document_change", args=[document.pk]))

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
                f"{queued} document(s) uploaded {_known_to(form)} and queued for ingestion.",
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


def _known_to(form: DocumentUploadForm) -> str:
    """Which bots got the upload, said back to the uploader."""
    bots = ", ".join(bot.name for bot in form.cleaned_data["bots"])
    if not bots:
        return "for no bot (as asked)"
    if form.bots_defaulted:
        return f"for every bot of {form.cleaned_data['workspace']} ({bots}), as none was chosen"
    return f"for {bots}"


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


def _fusion_label(fusion: WorkspaceFusion | None) -> str:
    if fusion is None or not fusion.method:
        return fusion_default().label()
    return FusionChoice.from_stored(method=fusion.method, parameters=fusion.parameters).label()


@admin.register(WorkspaceFusion)
class WorkspaceFusionAdmin(WorkspaceScopedAdmin):
    """Every field is measured, never edited; "change" permission is what the Recalibrate button needs."""

    list_display = [
        "workspace",
        "choice",
        "recall_at_5",
        "vector_recall_at_5",
        "text_recall_at_5",
        "pair_count",
        "chunk_count",
        "calibrated_at",
    ]
    list_filter = [WorkspaceListFilter, "method"]
    list_select_related = ["workspace"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [field.name for field in WorkspaceFusion._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.display(description="fusion")
    def choice(self, fusion: WorkspaceFusion) -> str:
        return _fusion_label(fusion) if fusion.method else "not calibrated (defaults)"

    def get_urls(self) -> list[URLPattern]:
        recalibrate = self.admin_site.admin_view(require_POST(self.recalibrate_view))
        return [
            path(
                "<uuid:workspace_id>/recalibrate/",
                recalibrate,
                name="rag_workspacefusion_recalibrate",
            ),
            *super().get_urls(),
        ]

    def recalibrate_view(self, request: HttpRequest, workspace_id: Any) -> HttpResponse:
        workspace = _workspaces_for(request).filter(pk=workspace_id).first()
        if workspace is None or not self.has_change_permission(request):
            raise Http404("No such workspace.")
        if workspace_fusion_request(workspace_id=workspace.pk):
            self.message_user(request, "Recalibration queued: the figures update when it ends.")
        else:
            self.message_user(request, "A recalibration is already queued.", messages.WARNING)
        return HttpResponseRedirect(reverse("admin:core_workspace_change", args=[workspace.pk]))


def _fusion_panel(request: HttpRequest, workspace: Workspace) -> str:
    fusion = WorkspaceFusion.objects.filter(workspace=workspace).first()
    fusion_admin = admin.site._registry[WorkspaceFusion]
    context = {
        "fusion": fusion,
        "label": _fusion_label(fusion),
        "candidates": fusion.candidates if fusion else [],
        "can_recalibrate": fusion_admin.has_change_permission(request),
        "recalibrate_url": reverse("admin:rag_workspacefusion_recalibrate", args=[workspace.pk]),
    }
    return render_to_string("admin/rag/workspacefusion/panel.html", context, request=request)


workspace_admin_panel_register(key="rag-fusion", render=_fusion_panel)


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
            '<img class="chunk-preview" src="{}"'
            ' alt="Page {} of the source, the passage highlighted">',
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
