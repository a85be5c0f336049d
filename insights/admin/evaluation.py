"""Admin for evaluation sets: edited inline, imported and exported as JSONL or CSV, run with overrides (a
run's own pages: insights.admin.evaluation_runs); and the sets "add to an evaluation set" offers on the
turns behind an analytics figure. Scoped by workspace."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html

from bots.models import PromptTemplateVersion
from core.admin_scoping import WorkspaceScopedAdmin, workspace_scope
from insights.models import EvaluationCase, EvaluationSet
from insights.models.evaluation import CASE_FIELDS
from insights.selectors.runs import runs_for_bot
from insights.services.cases_io import CaseData, CasesImportError, cases_export, cases_parse
from insights.services.runs import RunRefused, evaluation_run_create
from insights.services.sets import evaluation_cases_add

FORMATS = (("jsonl", "JSON Lines"), ("csv", "CSV"))


class EvaluationCaseInline(admin.TabularInline[EvaluationCase, EvaluationSet]):
    model = EvaluationCase
    fields = ["position", *CASE_FIELDS, "source_turn"]
    readonly_fields = ["source_turn"]
    extra = 1


class ImportForm(forms.Form):
    file = forms.FileField()
    file_format = forms.ChoiceField(choices=FORMATS, label="Format")
    replace = forms.BooleanField(required=False, help_text="Replace the set's cases (else append).")


class RunForm(forms.Form):
    label = forms.CharField(max_length=200, required=False)
    template_version = forms.TypedChoiceField(coerce=int, required=False, empty_value=None)
    rag_strictness = forms.ChoiceField(
        choices=[("", "As the bot is"), ("strict", "Strict"), ("relaxed", "Relaxed")],
        required=False,
    )
    top_k = forms.IntegerField(min_value=1, max_value=50, required=False)
    hybrid = forms.TypedChoiceField(
        choices=[("", "As the bot is"), ("1", "Hybrid (full-text + vector)"), ("0", "Vector only")],
        coerce=lambda value: value == "1",
        required=False,
        empty_value=None,
        label="Fusion",
    )
    model = forms.CharField(max_length=200, required=False, label="LLM model")

    def __init__(self, *args: Any, bot_id: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        versions = PromptTemplateVersion.objects.filter(
            bot_id=bot_id, kind=PromptTemplateVersion.Kind.ANSWER
        ).order_by("-number")
        field = self.fields["template_version"]
        assert isinstance(field, forms.TypedChoiceField)
        field.choices = [("", "The active template")] + [
            (v.number, f"v{v.number}{' (active)' if v.is_active else ''} {v.note}")
            for v in versions
        ]

    def overrides(self) -> dict[str, Any]:
        return {
            key: value
            for key, value in self.cleaned_data.items()
            if key != "label" and value not in (None, "")
        }


@admin.register(EvaluationSet)
class EvaluationSetAdmin(WorkspaceScopedAdmin[EvaluationSet]):
    workspace_lookup = "bot__workspace"
    list_display = ["name", "bot", "case_count", "updated_at", "actions_links"]
    list_filter = [("bot", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["name", "cases__question"]
    fields = ["bot", "name", "description"]
    inlines = [EvaluationCaseInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[EvaluationSet]:
        from django.db.models import Count

        queryset: QuerySet[EvaluationSet] = super().get_queryset(request)
        return queryset.annotate(n_cases=Count("cases"))

    @admin.display(description="cases", ordering="n_cases")
    def case_count(self, evaluation_set: Any) -> int:
        return int(evaluation_set.n_cases)

    @admin.display(description="")
    def actions_links(self, evaluation_set: EvaluationSet) -> str:
        return format_html(
            '<a href="{}">Run</a> · <a href="{}">Import</a> · <a href="{}">JSONL</a> · <a href="{}">CSV</a>',
            reverse("admin:insights_evaluationset_run", args=[evaluation_set.pk]),
            reverse("admin:insights_evaluationset_import", args=[evaluation_set.pk]),
            reverse("admin:insights_evaluationset_export", args=[evaluation_set.pk, "jsonl"]),
            reverse("admin:insights_evaluationset_export", args=[evaluation_set.pk, "csv"]),
        )

    def get_urls(self) -> list[URLPattern]:
        write, read = self.role_grant("change"), self.role_grant("view")
        run = ("insights", "evaluationrun", "add")
        return [
            path(
                "<uuid:pk>/import/",
                self.role_view(self.import_view, grant=write),
                name="insights_evaluationset_import",
            ),
            path(
                "<uuid:pk>/export/<str:file_format>/",
                self.role_view(self.export_view, grant=read),
                name="insights_evaluationset_export",
            ),
            path(
                "<uuid:pk>/run/",
                self.role_view(self.run_view, grant=run),
                name="insights_evaluationset_run",
            ),
            *super().get_urls(),
        ]

    def _set(self, request: HttpRequest, pk: Any, *, write: bool) -> EvaluationSet:
        found = get_object_or_404(self.get_queryset(request).select_related("bot"), pk=pk)
        allowed = self.has_change_permission if write else self.has_view_permission
        if not allowed(request, found):
            raise PermissionDenied
        return found

    def _page(self, request: HttpRequest, template: str, **context: Any) -> TemplateResponse:
        return TemplateResponse(
            request,
            template,
            {**self.admin_site.each_context(request), "opts": self.model._meta, **context},
        )

    def import_view(self, request: HttpRequest, pk: Any) -> HttpResponse:
        evaluation_set = self._set(request, pk, write=True)
        form = ImportForm(request.POST or None, request.FILES or None)
        problems: list[str] = []
        if request.method == "POST" and form.is_valid():
            try:
                cases = cases_parse(
                    raw=form.cleaned_data["file"].read(),
                    file_format=form.cleaned_data["file_format"],
                )
                added = evaluation_cases_add(
                    set_id=evaluation_set.pk, cases=cases, replace=form.cleaned_data["replace"]
                )
            except CasesImportError as error:
                problems = error.problems
            else:
                messages.success(request, f"{added} cases imported.")
                return HttpResponseRedirect(
                    reverse("admin:insights_evaluationset_change", args=[evaluation_set.pk])
                )
        return self._page(
            request,
            "admin/insights/set_import.html",
            title=f"Import cases into {evaluation_set.name}",
            evaluation_set=evaluation_set,
            form=form,
            problems=problems,
        )

    def export_view(self, request: HttpRequest, pk: Any, file_format: str) -> HttpResponse:
        evaluation_set = self._set(request, pk, write=False)
        if file_format not in dict(FORMATS):
            raise Http404("unknown format")
        body = cases_export(
            cases=[CaseData.of(case) for case in evaluation_set.cases.all()],
            file_format=file_format,
        )
        content_type = "application/jsonl" if file_format == "jsonl" else "text/csv"
        response = HttpResponse(body, content_type=f"{content_type}; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="evaluation-set.{file_format}"'
        return response

    def run_view(self, request: HttpRequest, pk: Any) -> HttpResponse:
        evaluation_set = self._set(request, pk, write=True)
        form = RunForm(request.POST or None, bot_id=evaluation_set.bot_id)
        refusal = ""
        if request.method == "POST" and form.is_valid():
            try:
                run = evaluation_run_create(
                    set_id=evaluation_set.pk,
                    overrides=form.overrides(),
                    label=form.cleaned_data["label"],
                    user=request.user,
                )
            except RunRefused as refused:
                refusal = str(refused)
            else:
                return HttpResponseRedirect(
                    reverse("admin:insights_evaluationrun_change", args=[run.pk])
                )
        return self._page(
            request,
            "admin/insights/set_run.html",
            title=f"Run {evaluation_set.name}",
            evaluation_set=evaluation_set,
            form=form,
            refusal=refusal,
            runs=runs_for_bot(bot_id=evaluation_set.bot_id)[:20],
        )


def evaluation_sets_for_user(*, request: HttpRequest) -> QuerySet[EvaluationSet]:
    return workspace_scope(
        EvaluationSet.objects.select_related("bot"), user=request.user, lookup="bot__workspace"
    )
