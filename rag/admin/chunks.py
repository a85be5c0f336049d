"""The chunk admin: read-only chunks, each with the picture the widget shows (its page region, the
passage highlighted), served by a view scoped like the list."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html

from core.admin_scoping import WorkspaceListFilter, WorkspaceScopedAdmin
from rag.models import Chunk
from rag.preview import PreviewUnavailable, chunk_preview


@admin.register(Chunk)
class ChunkAdmin(WorkspaceScopedAdmin[Chunk]):
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
        preview = self.role_view(self.preview_view, grant=self.role_grant("view"))
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
