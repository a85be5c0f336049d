"""The per-bot analytics page (admin:insights_analytics): the period and channel form, the figures
of insights.selectors.analytics drawn as SVG, the gap clusters, and two one-click writes (add a
suggested topic as covered; cluster the period's failed questions). Scoped through the bot admin's
queryset: a member sees only the bots of their workspaces, a stranger gets a 404.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.conf import settings
from django.contrib import messages
from django.db import transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils import timezone

from bots.models import Bot
from conversations.models import TurnStatus
from core.admin_scoping import Grant
from handoff.models import FeedbackReason
from insights.charts import STATUS_COLOURS, Chart, Segment, simple_columns, stacked_columns
from insights.models import GapClustering
from insights.selectors.analytics import Analytics, analytics_get
from insights.selectors.gaps import gap_clustering_latest
from insights.selectors.scope import CHANNELS, AnalyticsScope
from insights.selectors.turns import ESCALATION_ANY, ESCALATION_LABELS
from insights.services.gaps import gap_clustering_request
from insights.services.rollups import turn_rollups_ensure_fresh
from insights.tasks import gap_clusters_coverage_refresh_task
from prompt_context.services import PromptContextImportError, topic_cover
from prompts.admin.bot import bot_admin_link_register
from prompts.admin.views import BotAdminView

DEFAULT_DAYS = 30
# Reading a bot's analytics is reading its analysed turns (core.permissions: analysts and owners).
ANALYTICS_GRANT: Grant = ("insights", "analyzedturn", "view")
PERIOD_DAYS_MAX = 366 * 2


class PeriodForm(forms.Form):
    start = forms.DateField(widget=forms.DateInput(attrs={"type": "date"}))
    end = forms.DateField(widget=forms.DateInput(attrs={"type": "date"}), help_text="Included.")
    channel = forms.ChoiceField(choices=CHANNELS, required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        start, end = data.get("start"), data.get("end")
        if start and end and end < start:
            raise forms.ValidationError("The period ends before it starts.")
        if start and end and (end - start).days > PERIOD_DAYS_MAX:
            raise forms.ValidationError(f"A period spans at most {PERIOD_DAYS_MAX} days.")
        return data


def period_default() -> dict[str, Any]:
    today = timezone.localdate()
    return {"start": today - timedelta(days=DEFAULT_DAYS - 1), "end": today, "channel": ""}


def scope_for_period(*, bot_id: Any, start: date, end: date, channel: str) -> AnalyticsScope:
    zone = timezone.get_current_timezone()
    return AnalyticsScope(
        bot_id=str(bot_id),
        start=datetime.combine(start, time.min, tzinfo=zone),
        end=datetime.combine(end + timedelta(days=1), time.min, tzinfo=zone),
        channel=channel,
    )


class AnalyticsView(BotAdminView):
    template_name = "admin/insights/analytics.html"
    read_grant = ANALYTICS_GRANT
    write_grant = (
        "insights",
        "gapclustering",
        "add",
    )  # clustering, covering a topic: not read-only

    def get(self, request: HttpRequest, bot_id: Any) -> HttpResponse:
        bot = self.bot_get(request, bot_id)
        form = PeriodForm(request.GET or period_default())
        if not form.is_valid():
            return self.render(request, bot, f"Analytics: {bot.name}", form=form, data=None)
        scope = scope_for_period(bot_id=bot.pk, **form.cleaned_data)
        turn_rollups_ensure_fresh()
        data = analytics_get(scope=scope)
        return self.render(
            request,
            bot,
            f"Analytics: {bot.name}",
            form=form,
            data=data,
            query=urlencode({key: str(value) for key, value in form.cleaned_data.items()}),
            **page_context(data=data, bot=bot),
        )

    def post(self, request: HttpRequest, bot_id: Any) -> HttpResponse:
        bot = self.bot_get(request, bot_id, write=True)
        back = (
            reverse("admin:insights_analytics", args=[bot.pk]) + "?" + request.POST.get("query", "")
        )
        if request.POST.get("action") == "cover_topic":
            name = request.POST.get("topic", "")
            try:
                topic_cover(bot_id=bot.pk, name=name)
            except PromptContextImportError as error:
                messages.error(request, " ".join(error.problems))
            else:
                messages.success(request, f"“{name.strip()}” is now a covered topic of {bot.name}.")
        elif request.POST.get("action") == "cluster":
            form = PeriodForm(request.POST)
            if form.is_valid():
                scope = scope_for_period(bot_id=bot.pk, **form.cleaned_data)
                gap_clustering_request(
                    bot_id=bot.pk, start=scope.start, end=scope.end, channel=scope.channel
                )
                messages.success(request, "Clustering the period's failed questions…")
        elif request.POST.get("action") == "coverage":
            transaction.on_commit(lambda: gap_clusters_coverage_refresh_task.delay(str(bot.pk)))
            messages.success(request, "Checking which gaps later answers have covered…")
        return HttpResponseRedirect(back)


def page_context(*, data: Analytics, bot: Bot) -> dict[str, Any]:
    scope = data.scope
    clustering = gap_clustering_latest(bot_id=bot.pk)
    totals: dict[str, int] = {}
    for row in data.series:
        totals[row["status"]] = totals.get(row["status"], 0) + row["n"]
    period = timedelta(seconds=settings.INSIGHTS_ROLLUP_EVERY_SECONDS)
    return {
        "refresh_seconds": int(period.total_seconds()),
        "next_refresh": data.fresh_until + period if data.fresh_until else None,
        "status_chart": _status_chart(data),
        "status_totals": [
            {
                "status": status,
                "label": label,
                "n": totals.get(status, 0),
                "colour": STATUS_COLOURS[status],
                "href": _status_href(scope, status),
            }
            for status, label in TurnStatus.choices
        ],
        "histogram_chart": _histogram_chart(data),
        "all_turns_url": scope.turns_url(),
        "deflected_url": scope.turns_url(deflected="yes"),
        "curated_url": scope.turns_url(curated="yes"),
        "rated_url": scope.turns_url(feedback="any"),
        "down_url": scope.turns_url(feedback="down"),
        "up_url": scope.turns_url(feedback="up"),
        # Reasons and escalation kinds in words (their codes stay in the links and element ids).
        "reason_rows": [
            {
                **row,
                "label": _label(FeedbackReason, row["reason"]),
                "href": scope.turns_url(feedback_reason=row["reason"]),
            }
            for row in data.feedback["reasons"]
        ],
        "security_events_url": reverse("admin:conversations_securityevent_changelist"),
        "escalation_rows": [
            {
                **row,
                "label": ESCALATION_LABELS.get(row["kind"], str(row["kind"]).replace("_", " ")),
                "href": scope.turns_url(escalation=row["kind"]),
            }
            for row in data.escalations
        ],
        "topic_rows": [{**row, "href": scope.turns_url(topic=row["topic"])} for row in data.topics],
        "suggestion_rows": [
            {**row, "href": scope.turns_url(suggested_topic=row["topic"])}
            for row in data.suggested_topics
        ],
        "clustering": clustering,
        "cluster_rows": [
            {
                "cluster": cluster,
                "href": reverse("admin:insights_analyzedturn_changelist")
                + "?"
                + urlencode({"bot": str(bot.pk), "gap_cluster": cluster.pk}),
                "curate_href": reverse("admin:conversations_curatedanswer_add")
                + "?"
                + urlencode({"cluster": cluster.pk}),
                "curated_href": reverse(
                    "admin:conversations_curatedanswer_change", args=[cluster.curated_answer_id]
                )
                if cluster.curated_answer_id
                else "",
            }
            for cluster in (clustering.clusters.all() if clustering else [])
        ],
        "clustering_pending": GapClustering.objects.filter(
            bot=bot, status__in=[GapClustering.Status.QUEUED, GapClustering.Status.RUNNING]
        ).exists(),
    }


def _buckets(scope: AnalyticsScope, bucket: str) -> list[datetime]:
    """Every bucket start of the period, as date_trunc numbers them (weeks start on Monday)."""
    zone = timezone.get_current_timezone()
    first = scope.start.astimezone(zone).replace(hour=0, minute=0, second=0, microsecond=0)
    if bucket == "week":
        first -= timedelta(days=first.weekday())
    if bucket == "month":
        first = first.replace(day=1)
    starts = []
    current = first
    while current < scope.end:
        starts.append(current)
        if bucket == "month":
            current = (current.replace(day=28) + timedelta(days=4)).replace(day=1)
        else:
            current += timedelta(days=7 if bucket == "week" else 1)
    return starts


def _status_chart(data: Analytics) -> Chart:
    scope = data.scope
    starts = _buckets(scope, data.bucket)
    counts: dict[tuple[date, str], int] = {
        (row["bucket"], row["status"]): row["n"] for row in data.series
    }
    columns = []
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else scope.end
        narrowed = AnalyticsScope(
            bot_id=scope.bot_id, start=max(start, scope.start), end=end, channel=scope.channel
        )
        day = start.date()
        segments = [
            Segment(
                key=status,
                value=counts.get((day, status), 0),
                href=_status_href(narrowed, status),
                title=f"{day:%Y-%m-%d} · {label}: {counts.get((day, status), 0)}",
            )
            for status, label in TurnStatus.choices
            if counts.get((day, status), 0)
        ]
        columns.append((f"{start:%m-%d}" if data.bucket != "month" else f"{start:%Y-%m}", segments))
    return stacked_columns(columns, id_prefix="status")


def _status_href(scope: AnalyticsScope, status: str) -> str:
    """The turns behind a status figure; "Human escalation" counts handoffs, so it links to theirs."""
    if status == TurnStatus.HUMAN_ESCALATION:
        return scope.turns_url(escalation=ESCALATION_ANY)
    return scope.turns_url(status=status)


def _histogram_chart(data: Analytics) -> Chart:
    return simple_columns(
        [
            (
                f"{row['low']:.1f}",
                row["n"],
                data.scope.turns_url(confidence_bucket=row["bucket"]),
                f"confidence {row['low']:.1f} – {row['high']:.1f}: {row['n']}",
            )
            for row in data.histogram
        ],
        colour="#1976d2",
        id_prefix="confidence",
    )


# The bot's page and the bot list link here (the bot admin lives in prompts, below this app).
bot_admin_link_register(
    label="Analytics", url_name="admin:insights_analytics", element_id="bot-analytics"
)


def _label(choices: type[FeedbackReason], code: str) -> str:
    """A code's label in words; an unknown code (an old row) read as words too, never as a code."""
    return str(dict(choices.choices).get(code, code.replace("_", " ").capitalize()))
