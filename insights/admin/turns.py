"""The turns behind an analytics figure: the turn changelist (a proxy of conversations' TurnAdmin)
with the filters the analytics page links with, and CSV/JSON export of whatever the list shows.

The filters live here, not on conversations' admin, because they read handoffs, feedback and gap
clusters, which sit above conversations. Each is a SimpleListFilter so Django's changelist accepts
its parameter; the page builds the same scope (insights.selectors.scope) for its SQL.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.options import IncorrectLookupParameters
from django.core.exceptions import PermissionDenied
from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import Exists, F, OuterRef, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseBase, StreamingHttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html

from bots.models import Bot
from conversations.admin import TurnAdmin
from conversations.pipeline.curated import CURATED_MODEL
from core.admin_scoping import role_action, workspace_scope
from core.redaction import pii_redact_json
from handoff.models import FeedbackReason, Handoff
from insights.admin.analytics import ANALYTICS_GRANT, AnalyticsView
from insights.admin.evaluation import evaluation_sets_for_user
from insights.models import AnalyzedTurn, EvaluationSet, GapCluster
from insights.selectors.analytics import ANSWERED_STATUSES, HISTOGRAM_BUCKETS, NO_TOPIC
from insights.selectors.scope import CHANNELS, scope_from_params
from insights.selectors.turns import ESCALATION_ANY, ESCALATION_KINDS, escalation_turn_ids
from insights.services.sets import evaluation_cases_from_turns

EXPORT_FORMATS = ("csv", "json")
EXPORT_FIELDS = [
    "id",
    "created_at",
    "conversation_id",
    "channel",
    "user_text",
    "status",
    "answer",
    "topic",
    "suggested_topics",
    "confidence",
    "route_action",
    "route_reason",
    "model",
    "prompt_tokens",
    "completion_tokens",
    "latencies",
]
# The exported columns holding visitors' or the model's text.
_EXPORT_TEXT = ("user_text", "answer", "topic", "suggested_topics")


class _ParamFilter(admin.SimpleListFilter):
    """A filter set by links rather than picked from a list: it shows its current value only."""

    options: tuple[tuple[str, str], ...] = ()

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        if self.options:
            return list(self.options)
        value = self.value()
        return [(value, value)] if value else []

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        return self.narrow(request, queryset, value) if value else queryset

    def narrow(self, request: HttpRequest, queryset: QuerySet[Any], value: str) -> QuerySet[Any]:
        raise NotImplementedError


class BotFilter(_ParamFilter):
    title = "bot"
    parameter_name = "bot"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        bots = workspace_scope(Bot.objects.all(), user=request.user, lookup="workspace")
        return [(str(pk), name) for pk, name in bots.values_list("pk", "name")]

    def narrow(self, request: HttpRequest, queryset: QuerySet[Any], value: str) -> QuerySet[Any]:
        return queryset.filter(conversation__bot_id=value)


class ChannelFilter(_ParamFilter):
    title = "channel"
    parameter_name = "channel"
    options = tuple(choice for choice in CHANNELS if choice[0])

    def narrow(self, request: HttpRequest, queryset: QuerySet[Any], value: str) -> QuerySet[Any]:
        return queryset.filter(conversation__channel=value)


class PeriodStartFilter(_ParamFilter):
    title = "from"
    parameter_name = "period_start"

    def narrow(self, request: HttpRequest, queryset: QuerySet[Any], value: str) -> QuerySet[Any]:
        return queryset.filter(created_at__gte=_aware(value), completed_at__isnull=False)


class PeriodEndFilter(_ParamFilter):
    title = "until (excluded)"
    parameter_name = "period_end"

    def narrow(self, request: HttpRequest, queryset: QuerySet[Any], value: str) -> QuerySet[Any]:
        return queryset.filter(created_at__lt=_aware(value), completed_at__isnull=False)


class ConfidenceBucketFilter(_ParamFilter):
    title = "confidence bucket"
    parameter_name = "confidence_bucket"
    options = tuple(
        (str(b), f"{b / HISTOGRAM_BUCKETS:.1f} – {(b + 1) / HISTOGRAM_BUCKETS:.1f}")
        for b in range(HISTOGRAM_BUCKETS)
    )

    def narrow(self, request: HttpRequest, queryset: QuerySet[Any], value: str) -> QuerySet[Any]:
        bucket = int(value) if value.isdigit() else -1
        low = bucket / HISTOGRAM_BUCKETS
        if (
            bucket == HISTOGRAM_BUCKETS - 1
        ):  # the last bar includes 1.0, as width_bucket's clamp does
            return queryset.filter(confidence__gte=low)
        return queryset.filter(confidence__gte=low, confidence__lt=low + 1 / HISTOGRAM_BUCKETS)


class FeedbackFilter(_ParamFilter):
    title = "feedback"
    parameter_name = "feedback"
    options = (("any", "Rated"), ("up", "Helpful"), ("down", "Not helpful"))

    def narrow(self, request: HttpRequest, queryset: QuerySet[Any], value: str) -> QuerySet[Any]:
        if value == "any":
            return queryset.filter(feedback__isnull=False)
        return queryset.filter(feedback__rating=value)


class FeedbackReasonFilter(_ParamFilter):
    title = "down-vote reason"
    parameter_name = "feedback_reason"
    options = tuple(FeedbackReason.choices)

    def narrow(self, request: HttpRequest, queryset: QuerySet[Any], value: str) -> QuerySet[Any]:
        return queryset.filter(feedback__rating="down", feedback__reasons__contains=[value])


class DeflectedFilter(_ParamFilter):
    title = "deflected"
    parameter_name = "deflected"
    options = (("yes", "Answered without a handoff"), ("no", "Not deflected"))

    def narrow(self, request: HttpRequest, queryset: QuerySet[Any], value: str) -> QuerySet[Any]:
        handoff = Exists(Handoff.objects.filter(turn_id=OuterRef("pk")))
        deflected = queryset.filter(
            status__in=ANSWERED_STATUSES, route_action="show_answer"
        ).exclude(handoff)
        return deflected if value == "yes" else queryset.exclude(pk__in=deflected.values("pk"))


class CuratedFilter(_ParamFilter):
    title = "answered by"
    parameter_name = "curated"
    options = (("yes", "A curated answer"), ("no", "Retrieval and the model"))

    def narrow(self, request: HttpRequest, queryset: QuerySet[Any], value: str) -> QuerySet[Any]:
        if value == "yes":
            return queryset.filter(model=CURATED_MODEL)
        return queryset.exclude(model=CURATED_MODEL)


class EscalationFilter(_ParamFilter):
    title = "escalation"
    parameter_name = "escalation"
    options = (*ESCALATION_KINDS, (ESCALATION_ANY, "Any handoff"))

    def narrow(self, request: HttpRequest, queryset: QuerySet[Any], value: str) -> QuerySet[Any]:
        scope = scope_from_params(request.GET)
        if scope is None:  # the kinds are defined over a bot and period
            return queryset.none()
        return queryset.filter(pk__in=escalation_turn_ids(scope=scope, kind=value))


class SuggestedTopicFilter(_ParamFilter):
    title = "suggested topic (of turns without a topic)"
    parameter_name = "suggested_topic"

    def narrow(self, request: HttpRequest, queryset: QuerySet[Any], value: str) -> QuerySet[Any]:
        return queryset.filter(topic__in=NO_TOPIC, suggested_topics__contains=[value])


class GapClusterFilter(_ParamFilter):
    title = "gap cluster"
    parameter_name = "gap_cluster"

    def narrow(self, request: HttpRequest, queryset: QuerySet[Any], value: str) -> QuerySet[Any]:
        members = GapCluster.turns.through.objects.filter(
            gapcluster_id=int(value) if value.isdigit() else 0
        )
        return queryset.filter(pk__in=members.values("turn_id"))


def _aware(value: str) -> datetime:
    """An ISO moment from a link; a date or naive time reads in the current time zone."""
    try:
        moment = datetime.fromisoformat(value)
    except ValueError as error:
        raise IncorrectLookupParameters(f"not a date or time: {value!r}") from error
    return moment if moment.tzinfo is not None else timezone.make_aware(moment)


def _export(rows: QuerySet[Any], export: str) -> StreamingHttpResponse:
    """Stream the rows (no full list in memory: a figure may stand for 100k turns)."""
    if export == "json":
        body: Iterator[str] = _json_lines(_redacted(rows))
        response = StreamingHttpResponse(body, content_type="application/json")
    else:
        body = _csv_lines(_redacted(rows))
        response = StreamingHttpResponse(body, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="turns.{export}"'
    return response


def _redacted(rows: QuerySet[Any]) -> Iterator[dict[str, Any]]:
    """The rows, their text with personal data replaced where the workspace redacts (turns stored
    before it opted in included)."""
    for row in rows.iterator(chunk_size=2000):
        if row.pop("redact"):
            row.update({name: pii_redact_json(row[name]) for name in _EXPORT_TEXT})
        yield row


def _json_lines(rows: Iterator[dict[str, Any]]) -> Iterator[str]:
    yield "["
    for n, row in enumerate(rows):
        yield ("," if n else "") + json.dumps(row, cls=DjangoJSONEncoder, ensure_ascii=False)
    yield "]"


class _Echo:
    def write(self, value: str) -> str:
        return value


def _csv_lines(rows: Iterator[dict[str, Any]]) -> Iterator[str]:
    writer = csv.writer(_Echo())
    yield writer.writerow(EXPORT_FIELDS)
    for row in rows:
        yield writer.writerow(
            [
                json.dumps(row[name], ensure_ascii=False)
                if isinstance(row[name], dict | list)
                else row[name]
                for name in EXPORT_FIELDS
            ]
        )


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
        return _export(rows, export)

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
