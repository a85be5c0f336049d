"""The document admin: multi-file upload to a workspace and its bots, a status column that says why,
re-run and delete through the services, a replaced file, and the chunks quarantined as injections,
each with a release button."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join
from django.views.decorators.http import require_POST

from core.admin_scoping import WorkspaceListFilter, WorkspaceScopedAdmin
from rag.admin.scoping import workspaces_for
from rag.forms import DocumentChangeForm, DocumentUploadForm
from rag.models import Document
from rag.selectors import chunks_quarantined_list
from rag.services import (
    NewFile,
    chunk_release,
    document_delete,
    document_file_replace,
    document_rerun,
    documents_create,
)


@admin.register(Document)
class DocumentAdmin(WorkspaceScopedAdmin[Document]):
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
        release = self.role_view(
            require_POST(self.chunk_release_view), grant=self.role_grant("change")
        )
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
        if not self.has_add_permission(request):
            raise PermissionDenied
        workspaces = workspaces_for(request, grant=self.role_grant("add"))
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
