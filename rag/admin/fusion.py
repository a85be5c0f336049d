"""The workspace's fusion calibration: a read-only list of what was measured, a Recalibrate button
(a POST view scoped to the user's workspaces) and the section of the workspace's admin page."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.loader import render_to_string
from django.urls import URLPattern, path, reverse
from django.views.decorators.http import require_POST

from core.admin import workspace_admin_panel_register
from core.admin_scoping import WorkspaceListFilter, WorkspaceScopedAdmin
from core.models import Workspace
from rag.admin.scoping import workspaces_for
from rag.models import WorkspaceFusion
from rag.retrieval.calibration.service import workspace_fusion_request
from rag.retrieval.fusion import FusionChoice
from rag.retrieval.planning import fusion_default


def _fusion_label(fusion: WorkspaceFusion | None) -> str:
    if fusion is None or not fusion.method:
        return fusion_default().label()
    return FusionChoice.from_stored(method=fusion.method, parameters=fusion.parameters).label()


@admin.register(WorkspaceFusion)
class WorkspaceFusionAdmin(WorkspaceScopedAdmin[WorkspaceFusion]):
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
        recalibrate = self.role_view(
            require_POST(self.recalibrate_view), grant=self.role_grant("change")
        )
        return [
            path(
                "<uuid:workspace_id>/recalibrate/",
                recalibrate,
                name="rag_workspacefusion_recalibrate",
            ),
            *super().get_urls(),
        ]

    def recalibrate_view(self, request: HttpRequest, workspace_id: Any) -> HttpResponse:
        grant = self.role_grant("change")
        workspace = workspaces_for(request, grant=grant).filter(pk=workspace_id).first()
        if workspace is None or not self.has_change_permission(request):
            raise Http404("No such workspace.")
        if workspace_fusion_request(workspace_id=workspace.pk):
            self.message_user(request, "Recalibration queued: the figures update when it ends.")
        else:
            self.message_user(request, "A recalibration is already queued.", messages.WARNING)
        return HttpResponseRedirect(reverse("admin:core_workspace_change", args=[workspace.pk]))


# What each pair source means, in the words the panel shows (the stored choice's own label predates the
# real questions beyond evaluation cases and the withheld sentences).
_SOURCE_WORDS: dict[str, str] = {
    WorkspaceFusion.Source.EVALUATION: "real questions asked of this workspace's bots, each target a"
    " document",
    WorkspaceFusion.Source.SYNTHETIC: "sentences withheld from sampled chunks (the inverse cloze task:"
    " the chunk is scored without the sentence its query comes from), each target a chunk",
    WorkspaceFusion.Source.SYNTHETIC_PARAPHRASED: "sentences withheld from sampled chunks, part of them"
    " paraphrased by the LLM, each target a chunk",
}


def pair_origins_shown(fusion: WorkspaceFusion | None) -> list[dict[str, Any]]:
    """The stored origins as the panel lists them: what, how many pairs, and whether they counted
    (real questions under the minimum are set aside for synthetic pairs)."""
    if fusion is None:
        return []
    return [
        {
            "label": str(origin.get("label", "")),
            "count": int(origin.get("count", 0)),
            "used": "set aside" not in str(origin.get("label", "")),
        }
        for origin in fusion.pair_origins or []
    ]


def _fusion_panel(request: HttpRequest, workspace: Workspace) -> str:
    fusion = WorkspaceFusion.objects.filter(workspace=workspace).first()
    fusion_admin = admin.site._registry[WorkspaceFusion]
    context = {
        "fusion": fusion,
        "label": _fusion_label(fusion),
        "candidates": fusion.candidates if fusion else [],
        "source_words": _SOURCE_WORDS.get(fusion.pair_source, "") if fusion else "",
        "origins": pair_origins_shown(fusion),
        "can_recalibrate": fusion_admin.has_change_permission(request)
        and workspaces_for(request, grant=("rag", "workspacefusion", "change"))
        .filter(pk=workspace.pk)
        .exists(),
        "recalibrate_url": reverse("admin:rag_workspacefusion_recalibrate", args=[workspace.pk]),
    }
    return render_to_string("admin/rag/workspacefusion/panel.html", context, request=request)


workspace_admin_panel_register(key="rag-fusion", render=_fusion_panel)
