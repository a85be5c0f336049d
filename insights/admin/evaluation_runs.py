"""Admin for evaluation runs: a run's page (progress, metrics, confusion matrix, cases) and two runs
compared. Runs start from their set's "Run" page (insights.admin.evaluation). Scoped by workspace."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse

from core.admin_scoping import WorkspaceScopedAdmin
from insights.models import EvaluationRun
from insights.selectors.runs import run_confusion, runs_compare, runs_for_bot


@admin.register(EvaluationRun)
class EvaluationRunAdmin(WorkspaceScopedAdmin[EvaluationRun]):
    workspace_lookup = "bot__workspace"
    list_display = [
        "created_at",
        "bot",
        "evaluation_set",
        "label",
        "status",
        "progress",
        "pass_rate",
    ]
    list_filter = [("bot", admin.RelatedOnlyFieldListFilter), "status"]
    list_select_related = ["bot", "evaluation_set"]
    actions = ["compare_runs"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # runs start from their set's "Run" page

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="progress")
    def progress(self, run: EvaluationRun) -> str:
        return f"{run.done}/{run.total}"

    @admin.display(description="pass rate")
    def pass_rate(self, run: EvaluationRun) -> str:
        rate = run.metrics.get("pass_rate")
        return "–" if rate is None else f"{rate:.0%}"

    def get_urls(self) -> list[URLPattern]:
        compare = self.role_view(self.compare_view, grant=self.role_grant("view"))
        return [
            path("compare/", compare, name="insights_evaluationrun_compare"),
            *super().get_urls(),
        ]

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        run = get_object_or_404(
            self.get_queryset(request).select_related("bot", "evaluation_set"), pk=object_id
        )
        if not self.has_view_permission(request, run):
            raise PermissionDenied
        others = [other for other in runs_for_bot(bot_id=run.bot_id) if other.pk != run.pk]
        return TemplateResponse(
            request,
            "admin/insights/run.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.model._meta,
                "title": f"Evaluation run: {run}",
                "run": run,
                "results": run.results.all(),
                "confusion": run_confusion(run=run),
                "others": others,
            },
        )

    def compare_view(self, request: HttpRequest) -> HttpResponse:
        scoped = self.get_queryset(request).select_related("evaluation_set", "bot")
        left = get_object_or_404(scoped, pk=request.GET.get("left") or None)
        right = get_object_or_404(scoped, pk=request.GET.get("right") or None)
        metrics, rows = runs_compare(left=left, right=right)
        return TemplateResponse(
            request,
            "admin/insights/compare.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.model._meta,
                "title": "Compare evaluation runs",
                "left": left,
                "right": right,
                "metrics": metrics,
                "rows": rows,
                "differences": sum(row.differs for row in rows),
            },
        )

    @admin.action(description="Compare the two selected runs", permissions=["view"])
    def compare_runs(self, request: HttpRequest, queryset: QuerySet[EvaluationRun]) -> Any:
        runs = list(queryset.order_by("created_at")[:3])
        if len(runs) != 2:
            self.message_user(request, "Select exactly two runs to compare.", messages.WARNING)
            return None
        return HttpResponseRedirect(
            reverse("admin:insights_evaluationrun_compare")
            + f"?left={runs[0].pk}&right={runs[1].pk}"
        )
