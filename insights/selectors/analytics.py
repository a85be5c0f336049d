"""The analytics page's figures: read from the daily rollups (insights.models.TurnRollup) for the
turn counts, and live from handoffs for escalations (a small table, read by its opened_at index).
Each statement is timed for bench/analytics.

The rollups hold whole days, so a scope's period is read as the days [start, end). Their freshness
is the watermark's (`Analytics.fresh_until`), at most one refresh period behind the turns.

One source per figure: the status chart's "Human escalation" is the period's handoffs (by the day
each opened), the rows the escalations table counts, not the turns whose status says so (a handoff
asked for with the button, or for low confidence, has none; issue 51 read 1 beside a table of 2).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import connection
from django.utils import timezone

from conversations.models import TurnStatus
from conversations.types import UNKNOWN_TOPIC
from insights.selectors.scope import ESCALATIONS_SQL, AnalyticsScope

HISTOGRAM_BUCKETS = 10
TOP_TOPICS = 10
ANSWERED_STATUSES = (TurnStatus.FOUND_IN_CONTEXT.value, TurnStatus.SMALL_TALK.value)
NO_TOPIC = ("", UNKNOWN_TOPIC)

_ROLLUP_SCOPE = """
FROM insights_turnrollup AS r
WHERE r.bot_id = %(bot)s::uuid AND r.day >= %(first_day)s AND r.day < %(end_day)s
  AND (%(channel)s = '' OR r.channel = %(channel)s)
"""
_TOTALS_SQL = """
SELECT r.dimension, r.key, sum(r.n)::int AS n {scope}
  AND r.dimension IN ('turns', 'deflected', 'curated', 'confidence', 'feedback', 'feedback_reason',
                      'corrected')
GROUP BY r.dimension, r.key
""".replace("{scope}", _ROLLUP_SCOPE)
_SERIES_SQL = """
SELECT date_trunc(%(bucket)s, r.day)::date AS bucket, r.key AS status, sum(r.n)::int AS n {scope}
  AND r.dimension = 'status'
GROUP BY 1, 2 ORDER BY 1, 2
""".replace("{scope}", _ROLLUP_SCOPE)
# The most frequent topics of one dimension ('topic' or 'suggested'), each saying whether the bot
# already has it (covered or excluded).
_RANKED_TOPICS_SQL = """
SELECT r.key AS topic, sum(r.n)::int AS n,
       EXISTS (SELECT 1 FROM prompt_context_topic AS p
               WHERE p.bot_id = %(bot)s::uuid AND lower(p.name) = lower(r.key)) AS known
{scope} AND r.dimension = '{dimension}'
GROUP BY r.key ORDER BY n DESC, r.key LIMIT %(top)s
""".replace("{scope}", _ROLLUP_SCOPE)
_TOPICS_SQL = _RANKED_TOPICS_SQL.replace("{dimension}", "topic")
_SUGGESTED_SQL = _RANKED_TOPICS_SQL.replace("{dimension}", "suggested")
_ESCALATIONS_SQL = """
SELECT e.kind, count(*)::int AS n, count(e.claimed_at)::int AS claimed,
       count(e.timed_out_at)::int AS timeouts,
       avg(extract(epoch FROM e.claimed_at - e.opened_at)) AS claim_mean_s,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM e.claimed_at - e.opened_at))
           AS claim_median_s
FROM ({escalations}) AS e GROUP BY e.kind ORDER BY n DESC, e.kind
""".replace("{escalations}", ESCALATIONS_SQL)
_ESCALATION_SERIES_SQL = """
SELECT date_trunc(%(bucket)s, (e.opened_at AT TIME ZONE %(tz)s)::date)::date AS bucket,
       'human_escalation' AS status, count(*)::int AS n
FROM ({escalations}) AS e GROUP BY 1 ORDER BY 1
""".replace("{escalations}", ESCALATIONS_SQL)
_WATERMARK_SQL = "SELECT until FROM insights_rollupwatermark WHERE id = 1"
# The injection detector's bands (the bot's settings) and the turns each took over the period, read
# live from the security events (a small table: one row per refused or watched turn).
_GUARD_SQL = """
SELECT b.injection_threshold AS threshold, b.injection_watch AS watch,
       count(e.id) FILTER (WHERE e.kind = 'injection_attempt' AND e.label <> 'model_flag')::int
           AS refused,
       count(e.id) FILTER (WHERE e.kind = 'injection_attempt' AND e.label = 'model_flag')::int
           AS model_flagged,
       count(e.id) FILTER (WHERE e.kind = 'injection_watched')::int AS watched
FROM bots_bot AS b
LEFT JOIN conversations_conversation AS c
       ON c.bot_id = b.id AND (%(channel)s = '' OR c.channel = %(channel)s)
LEFT JOIN conversations_securityevent AS e
       ON e.conversation_id = c.id AND e.created_at >= %(start)s AND e.created_at < %(end)s
WHERE b.id = %(bot)s::uuid
GROUP BY b.id
"""


@dataclass
class Analytics:
    scope: AnalyticsScope
    bucket: str
    series: list[dict[str, Any]]
    summary: dict[str, Any]
    histogram: list[dict[str, Any]]
    topics: list[dict[str, Any]]
    suggested_topics: list[dict[str, Any]]
    feedback: dict[str, Any]
    escalations: list[dict[str, Any]]
    fresh_until: datetime | None = None
    # The injection bands and what each did: threshold, watch, refused, model_flagged, watched.
    guard: dict[str, Any] = field(default_factory=dict)
    timings_ms: dict[str, float] = field(default_factory=dict)


def analytics_bucket(*, scope: AnalyticsScope) -> str:
    """Days up to two months, then weeks, then months: a chart keeps a readable number of bars."""
    span = scope.end - scope.start
    if span <= timedelta(days=62):
        return "day"
    return "week" if span <= timedelta(days=400) else "month"


def analytics_get(*, scope: AnalyticsScope) -> Analytics:
    timings: dict[str, float] = {}
    zone = timezone.get_current_timezone()
    params = {
        **scope.sql_params(),
        "bucket": analytics_bucket(scope=scope),
        "first_day": scope.start.astimezone(zone).date(),
        "end_day": scope.end.astimezone(zone).date(),
        "top": TOP_TOPICS,
        "tz": str(zone),
    }

    def timed(name: str, sql: str) -> list[dict[str, Any]]:
        started = time.perf_counter()
        rows = _rows(sql, params)
        timings[name] = round((time.perf_counter() - started) * 1000, 2)
        return rows

    totals = timed("totals", _TOTALS_SQL)
    series = [
        row
        for row in timed("status_series", _SERIES_SQL)
        if row["status"] != TurnStatus.HUMAN_ESCALATION.value
    ]
    series += timed("escalation_series", _ESCALATION_SERIES_SQL)
    series.sort(key=lambda row: (row["bucket"], row["status"]))
    topics = timed("top_topics", _TOPICS_SQL)
    suggested = timed("suggested_topics", _SUGGESTED_SQL)
    escalations = timed("escalations", _ESCALATIONS_SQL)
    watermark = timed("freshness", _WATERMARK_SQL)
    guard = timed("guard_bands", _GUARD_SQL)
    figures = _figures(totals)
    return Analytics(
        scope=scope,
        bucket=params["bucket"],
        series=series,
        summary=_summary(figures),
        histogram=_histogram(figures),
        topics=topics,
        suggested_topics=suggested,
        feedback=_feedback(figures),
        escalations=escalations,
        fresh_until=watermark[0]["until"] if watermark else None,
        guard=guard[0] if guard else {},
        timings_ms=timings,
    )


def _rows(sql: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        names = [column.name for column in cursor.description or ()]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _figures(rows: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    figures: dict[str, dict[str, int]] = {}
    for row in rows:
        figures.setdefault(row["dimension"], {})[row["key"]] = row["n"]
    return figures


def _summary(figures: dict[str, dict[str, int]]) -> dict[str, Any]:
    turns = figures.get("turns", {}).get("", 0)
    deflected = figures.get("deflected", {}).get("yes", 0)
    curated = figures.get("curated", {}).get("yes", 0)
    corrected = figures.get("corrected", {})
    return {
        # Answers the support check corrected, at all (key "") and by kind of fact.
        "corrected": corrected.get("", 0),
        "corrected_by_kind": sorted(
            ((kind, n) for kind, n in corrected.items() if kind),
            key=lambda item: (-item[1], item[0]),
        ),
        "turns": turns,
        "deflected": deflected,
        "deflection_rate": deflected / turns if turns else None,
        "curated": curated,
        "curated_rate": curated / turns if turns else None,
    }


def _histogram(figures: dict[str, dict[str, int]]) -> list[dict[str, Any]]:
    counts = figures.get("confidence", {})
    return [
        {
            "bucket": bucket,
            "low": bucket / HISTOGRAM_BUCKETS,
            "high": (bucket + 1) / HISTOGRAM_BUCKETS,
            "n": counts.get(str(bucket), 0),
        }
        for bucket in range(HISTOGRAM_BUCKETS)
    ]


def _feedback(figures: dict[str, dict[str, int]]) -> dict[str, Any]:
    turns = figures.get("turns", {}).get("", 0)
    ratings = figures.get("feedback", {})
    rated = sum(ratings.values())
    reasons = sorted(
        figures.get("feedback_reason", {}).items(), key=lambda item: (-item[1], item[0])
    )
    return {
        "turns": turns,
        "rated": rated,
        "up": ratings.get("up", 0),
        "down": ratings.get("down", 0),
        "rate": rated / turns if turns else None,
        "reasons": [{"reason": reason, "n": n} for reason, n in reasons],
    }
