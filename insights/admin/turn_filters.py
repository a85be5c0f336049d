"""The filters the analytics page links the turn changelist with: bot, channel, period, confidence
bucket, feedback, deflection, curated answers, escalation, suggested topic and gap cluster.

They live here, not on conversations' admin, because they read handoffs, feedback and gap clusters,
which sit above conversations. Each is a SimpleListFilter so Django's changelist accepts its
parameter; the page builds the same scope (insights.selectors.scope) for its SQL.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.contrib import admin
from django.contrib.admin.options import IncorrectLookupParameters
from django.db.models import Exists, OuterRef, QuerySet
from django.http import HttpRequest
from django.utils import timezone

from bots.models import Bot
from conversations.pipeline.curated import CURATED_MODEL
from core.admin_scoping import workspace_scope
from handoff.models import FeedbackReason, Handoff
from insights.models import GapCluster
from insights.selectors.analytics import ANSWERED_STATUSES, HISTOGRAM_BUCKETS, NO_TOPIC
from insights.selectors.scope import CHANNELS, scope_from_params
from insights.selectors.turns import ESCALATION_ANY, ESCALATION_KINDS, escalation_turn_ids


class ParamFilter(admin.SimpleListFilter):
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


class BotFilter(ParamFilter):
    title = "bot"
    parameter_name = "bot"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        bots = workspace_scope(Bot.objects.all(), user=request.user, lookup="workspace")
        return [(str(pk), name) for pk, name in bots.values_list("pk", "name")]

    def narrow(self, request: HttpRequest, queryset: QuerySet[Any], value: str) -> QuerySet[Any]:
        return queryset.filter(conversation__bot_id=value)


class ChannelFilter(ParamFilter):
    title = "channel"
    parameter_name = "channel"
    options = tuple(choice for choice in CHANNELS if choice[0])

    def narrow(self, request: HttpRequest, queryset: QuerySet[Any], value: str) -> QuerySet[Any]:
        return queryset.filter(conversation__channel=value)


class PeriodStartFilter(ParamFilter):
    title = "from"
    parameter_name = "period_start"

    def narrow(self, request: HttpRequest, queryset: QuerySet[Any], value: str) -> QuerySet[Any]:
        return queryset.filter(created_at__gte=_aware(value), completed_at__isnull=False)


class PeriodEndFilter(ParamFilter):
    title = "until (excluded)"
    parameter_name = "period_end"

    def narrow(self, request: HttpRequest, queryset: QuerySet[Any], value: str) -> QuerySet[Any]:
        return queryset.filter(created_at__lt=_aware(value), completed_at__isnull=False)


class ConfidenceBucketFilter(ParamFilter):
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


class FeedbackFilter(ParamFilter):
    title = "feedback"
    parameter_name = "feedback"
    options = (("any", "Rated"), ("up", "Helpful"), ("down", "Not helpful"))

    def narrow(self, request: HttpRequest, queryset: QuerySet[Any], value: str) -> QuerySet[Any]:
        if value == "any":
            return queryset.filter(feedback__isnull=False)
        return queryset.filter(feedback__rating=value)


class FeedbackReasonFilter(ParamFilter):
    title = "down-vote reason"
    parameter_name = "feedback_reason"
    options = tuple(FeedbackReason.choices)

    def narrow(self, request: HttpRequest, queryset: QuerySet[Any], value: str) -> QuerySet[Any]:
        return queryset.filter(feedback__rating="down", feedback__reasons__contains=[value])


class DeflectedFilter(ParamFilter):
    title = "deflected"
    parameter_name = "deflected"
    options = (("yes", "Answered without a handoff"), ("no", "Not deflected"))

    def narrow(self, request: HttpRequest, queryset: QuerySet[Any], value: str) -> QuerySet[Any]:
        handoff = Exists(Handoff.objects.filter(turn_id=OuterRef("pk")))
        deflected = queryset.filter(
            status__in=ANSWERED_STATUSES, route_action="show_answer"
        ).exclude(handoff)
        return deflected if value == "yes" else queryset.exclude(pk__in=deflected.values("pk"))


class CuratedFilter(ParamFilter):
    title = "answered by"
    parameter_name = "curated"
    options = (("yes", "A curated answer"), ("no", "Retrieval and the model"))

    def narrow(self, request: HttpRequest, queryset: QuerySet[Any], value: str) -> QuerySet[Any]:
        if value == "yes":
            return queryset.filter(model=CURATED_MODEL)
        return queryset.exclude(model=CURATED_MODEL)


class EscalationFilter(ParamFilter):
    title = "escalation"
    parameter_name = "escalation"
    options = (*ESCALATION_KINDS, (ESCALATION_ANY, "Any handoff"))

    def narrow(self, request: HttpRequest, queryset: QuerySet[Any], value: str) -> QuerySet[Any]:
        scope = scope_from_params(request.GET)
        if scope is None:  # the kinds are defined over a bot and period
            return queryset.none()
        return queryset.filter(pk__in=escalation_turn_ids(scope=scope, kind=value))


class SuggestedTopicFilter(ParamFilter):
    title = "suggested topic (of turns without a topic)"
    parameter_name = "suggested_topic"

    def narrow(self, request: HttpRequest, queryset: QuerySet[Any], value: str) -> QuerySet[Any]:
        return queryset.filter(topic__in=NO_TOPIC, suggested_topics__contains=[value])


class GapClusterFilter(ParamFilter):
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
