"""The turns behind an analytics figure: the turn changelist (a proxy of conversations' TurnAdmin)
with the filters the analytics page links with (insights.admin.turn_filters), CSV/JSON export of
whatever the list shows (insights.admin.turn_export), and the action adding turns to an evaluation set.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied
from django.db.models import F, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html

from bots.models import Bot
from conversations.admin import TurnAdmin
from core.admin_scoping import role_action
from insights.admin.analytics import ANALYTICS_GRANT, AnalyticsView
from insights.admin.evaluation import evaluation_sets_for_user
from insights.admin.turn_export import EXPORT_FIELDS, EXPORT_FORMATS, turns_export
from insights.admin.turn_filters import (
    BotFilter,
    ChannelFilter,
    ConfidenceBucketFilter,
    CuratedFilter,
    DeflectedFilter,
    EscalationFilter,
    FeedbackFilter,
    FeedbackReasonFilter,
    GapClusterFilter,
    PeriodEndFilter,
    PeriodStartFilter,
    SuggestedTopicFilter,
)
from insights.models import AnalyzedTurn, EvaluationSet
from insights.services.sets import evaluation_cases_from_turns


@admin.register(AnalyzedTurn)
class AnalyzedTurnAdmin(TurnAdmin):
    """Reached from the analytics page; hidden from the index (the Turns list is the general one)."""

    list_filter = [
        BotFilter,
        ChannelFilter,
        PeriodStartFilter,
        PeriodEndFilter,
        "status",
        ConfidenceBucketFilter,
        FeedbackFilter,
        FeedbackReasonFilter,
        DeflectedFilter,
        CuratedFilter,
        EscalationFilter,
        SuggestedTopicFilter,
        GapClusterFilter,
        "topic",
    ]
    actions = ["add_to_evaluation_set"]

    def has_module_permission(self, request: HttpRequest) -> bool:
        return False

    # An export streams (a figure may stand for 100k turns): a StreamingHttpResponse, which Django's
    # changelist_view serves as well as an HttpResponse although its stubs say HttpResponse.
    def changelist_view(  # type: ignore[override]
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponseBase:
        export = request.GET.get("export", "")
        if export not in EXPORT_FORMATS:
            return super().changelist_view(request, extra_context)
        if not self.has_view_permission(request):
            raise PermissionDenied
        params = request.GET.copy()
        del params["export"]
        # The changelist reads its filters from request.GET; "export" is not one of them.
        request.GET = params  # type: ignore[assignment]
        changelist = self.get_changelist_instance(request)
        rows = (
            changelist.get_queryset(request)
            .annotate(channel=F("conversation__channel"))
            .values(*EXPORT_FIELDS, redact=F("conversation__bot__workspace__redact_personal_data"))
            .order_by("created_at")
        )
        return turns_export(rows=rows, export=export)

    def get_urls(self) -> list[URLPattern]:
        # The plain changelist and change pages only: the Try-it console stays on the Turn admin.
        view = self.role_view(
            AnalyticsView.as_view(model_admin=self.admin_site._registry[Bot]),
            grant=ANALYTICS_GRANT,
        )
        return [
            path("analytics/<uuid:bot_id>/", view, name="insights_analytics"),
            *admin.ModelAdmin.get_urls(self),
        ]

    @role_action(grant=("insights", "evaluationcase", "add"))
    @admin.action(description="Add the selected turns to an evaluation set")
    def add_to_evaluation_set(
        self, request: HttpRequest, queryset: QuerySet[Any]
    ) -> HttpResponse | None:
        turns = list(queryset.select_related("conversation"))
        bot_ids = {turn.conversation.bot_id for turn in turns}
        if len(bot_ids) != 1:
            self.message_user(request, "Select turns of one bot.", messages.WARNING)
            return None
        bot_id = bot_ids.pop()
        sets = evaluation_sets_for_user(request=request).filter(bot_id=bot_id)
        form = AddToSetForm(request.POST if "apply" in request.POST else None, sets=sets)
        if form.is_valid():
            target = form.cleaned_data["evaluation_set"] or EvaluationSet.objects.create(
                bot_id=bot_id, name=form.cleaned_data["new_set_name"]
            )
            added = evaluation_cases_from_turns(set_id=target.pk, turn_ids=[t.pk for t in turns])
            self.message_user(
                request,
                format_html(
                    '{} cases added to <a href="{}">{}</a>.',
                    added,
                    reverse("admin:insights_evaluationset_change", args=[target.pk]),
                    target.name,
                ),
            )
            return None
        return TemplateResponse(
            request,
            "admin/insights/add_to_set.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.model._meta,
                "title": "Add turns to an evaluation set",
                "turns": turns,
                "form": form,
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            },
        )


class AddToSetForm(forms.Form):
    evaluation_set = forms.ModelChoiceField(
        queryset=EvaluationSet.objects.none(), required=False, empty_label="A new set…"
    )
    new_set_name = forms.CharField(max_length=120, required=False)

    def __init__(self, *args: Any, sets: QuerySet[EvaluationSet], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["evaluation_set"]
        assert isinstance(field, forms.ModelChoiceField)
        field.queryset = sets
        self._sets = sets

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        name = (data.get("new_set_name") or "").strip()
        if data.get("evaluation_set") is None:
            if not name:
                raise forms.ValidationError("Pick a set, or name a new one.")
            if self._sets.filter(name=name).exists():
                raise forms.ValidationError(f"The bot already has a set named “{name}”.")
        data["new_set_name"] = name
        return data
