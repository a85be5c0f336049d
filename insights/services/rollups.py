"""Keep the analytics rollups (insights.models.TurnRollup) true: recompute every (bot, day) that has a
turn completed, a feedback given or changed, or a handoff opened since the watermark.

A day is recomputed whole (DELETE then INSERT … SELECT, in one transaction), so running twice or
overlapping windows is harmless; the window reaches back `OVERLAP` before the watermark for rows
committed late by a transaction that started earlier.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from conversations.pipeline.curated import CURATED_MODEL
from insights.models import RollupWatermark
from insights.selectors.analytics import ANSWERED_STATUSES, HISTOGRAM_BUCKETS, NO_TOPIC

if TYPE_CHECKING:
    from django.db.backends.utils import CursorWrapper

OVERLAP = timedelta(minutes=5)
BEGINNING = datetime(2000, 1, 1, tzinfo=UTC)

# (bot, day) pairs touched in [since, until): the indexes insights_turn_completed,
# handoff feedback's updated_at and handoff's opened_at keep this a range read.
_TOUCHED_SQL = """
SELECT c.bot_id, (t.created_at AT TIME ZONE %(tz)s)::date AS day
FROM conversations_turn AS t JOIN conversations_conversation AS c ON c.id = t.conversation_id
WHERE t.completed_at >= %(since)s AND t.completed_at < %(until)s
UNION
SELECT c.bot_id, (t.created_at AT TIME ZONE %(tz)s)::date
FROM handoff_turnfeedback AS f
JOIN conversations_turn AS t ON t.id = f.turn_id
JOIN conversations_conversation AS c ON c.id = t.conversation_id
WHERE f.updated_at >= %(since)s AND f.updated_at < %(until)s
UNION
SELECT c.bot_id, (t.created_at AT TIME ZONE %(tz)s)::date
FROM handoff_handoff AS h
JOIN conversations_turn AS t ON t.id = h.turn_id
JOIN conversations_conversation AS c ON c.id = t.conversation_id
WHERE h.opened_at >= %(since)s AND h.opened_at < %(until)s
"""

_DELETE_SQL = "DELETE FROM insights_turnrollup WHERE bot_id = %(bot)s AND day = %(day)s"

# Every dimension of one bot's day, per channel. A turn is deflected when the bot answered it (from
# its knowledge, or small talk), showed the answer, and no handoff names it; curated when a curated
# answer answered it (the turn's model is the pipeline's curated marker).
_INSERT_SQL = r"""
WITH s AS MATERIALIZED (
    SELECT t.id, t.status, t.confidence, t.topic, t.suggested_topics, t.route_action, t.model,
           t.repairs, c.channel
    FROM conversations_turn AS t JOIN conversations_conversation AS c ON c.id = t.conversation_id
    WHERE c.bot_id = %(bot)s AND t.completed_at IS NOT NULL
      AND t.created_at >= %(start)s AND t.created_at < %(end)s
)
INSERT INTO insights_turnrollup (bot_id, day, channel, dimension, key, n)
SELECT %(bot)s, %(day)s, channel, dimension, key, n FROM (
    SELECT channel, 'turns' AS dimension, '' AS key, count(*) AS n FROM s GROUP BY channel
    UNION ALL
    SELECT channel, 'status', status, count(*) FROM s GROUP BY channel, status
    UNION ALL
    SELECT channel, 'confidence',
           (least(width_bucket(confidence, 0, 1, %(buckets)s), %(buckets)s) - 1)::text, count(*)
    FROM s WHERE confidence IS NOT NULL GROUP BY 1, 3
    UNION ALL
    SELECT channel, 'topic', left(topic, 200), count(*) FROM s
    WHERE NOT (lower(topic) = ANY(%(no_topic)s)) GROUP BY 1, 3
    UNION ALL
    SELECT channel, 'suggested', left(x.value, 200), count(*)
    FROM s CROSS JOIN LATERAL jsonb_array_elements_text(s.suggested_topics) AS x(value)
    WHERE lower(s.topic) = ANY(%(no_topic)s) AND x.value <> '' GROUP BY 1, 3
    UNION ALL
    SELECT channel, 'deflected', 'yes', count(*) FROM s
    WHERE s.status = ANY(%(answered)s) AND s.route_action = 'show_answer'
      AND NOT EXISTS (SELECT 1 FROM handoff_handoff AS h WHERE h.turn_id = s.id)
    GROUP BY channel
    UNION ALL
    SELECT channel, 'curated', 'yes', count(*) FROM s WHERE s.model = %(curated)s GROUP BY channel
    UNION ALL
    -- Answers the support check corrected (conversations/contract/support), by kind of fact: a turn
    -- counts once per kind it had removed, and once under '' (answers corrected at all).
    SELECT channel, 'corrected', coalesce(kind, ''), count(DISTINCT id) FROM (
        SELECT s.channel, s.id, substring(r.value->>'code' FROM '^unsupported_(.*)_removed$') AS kind
        FROM s CROSS JOIN LATERAL jsonb_array_elements(s.repairs) AS r(value)
        WHERE r.value->>'code' LIKE 'unsupported\_%%\_removed'
    ) AS removed GROUP BY ROLLUP(channel, kind) HAVING channel IS NOT NULL
    UNION ALL
    SELECT s.channel, 'feedback', f.rating, count(*) FROM s JOIN handoff_turnfeedback AS f ON f.turn_id = s.id
    GROUP BY 1, 3
    UNION ALL
    SELECT s.channel, 'feedback_reason', reason, count(*)
    FROM s JOIN handoff_turnfeedback AS f ON f.turn_id = s.id AND f.rating = 'down'
    CROSS JOIN LATERAL unnest(f.reasons) AS reason GROUP BY 1, 3
) AS figures
"""


def turn_rollups_refresh(*, until: datetime | None = None) -> int:
    """Recompute the rollups of every (bot, day) changed since the watermark; returns the days redone."""
    until = until or timezone.now()
    zone = settings.TIME_ZONE
    # The row exists before it is locked, so two refreshes queue on it rather than race.
    RollupWatermark.objects.get_or_create(pk=1, defaults={"until": BEGINNING})
    with transaction.atomic():
        watermark = RollupWatermark.objects.select_for_update().get(pk=1)
        since = watermark.until - OVERLAP
        with connection.cursor() as cursor:
            cursor.execute(_TOUCHED_SQL, {"since": since, "until": until, "tz": zone})
            touched = cursor.fetchall()
            for bot_id, day in touched:
                turn_rollup_day_compute(cursor=cursor, bot_id=str(bot_id), day=day)
        RollupWatermark.objects.filter(pk=1).update(until=until)
    return len(touched)


def turn_rollups_ensure_fresh(*, now: datetime | None = None) -> datetime:
    """The analytics page's figures no older than their period (INSIGHTS_ROLLUP_EVERY_SECONDS): the
    rollups are refreshed here when the periodic task has not run for longer (beat stopped, or not
    run yet). Returns the watermark."""
    now = now or timezone.now()
    period = timedelta(seconds=settings.INSIGHTS_ROLLUP_EVERY_SECONDS)
    until = RollupWatermark.objects.filter(pk=1).values_list("until", flat=True).first()
    if until is None or now - until > period:
        turn_rollups_refresh(until=now)
        return now
    return until


_BOT_DAYS_SQL = """
SELECT DISTINCT (t.created_at AT TIME ZONE %(tz)s)::date
FROM conversations_turn AS t JOIN conversations_conversation AS c ON c.id = t.conversation_id
WHERE c.bot_id = %(bot)s::uuid
"""


def turn_rollups_rebuild(*, bot_id: str) -> int:
    """Recompute every day of one bot that has turns (after importing history, whose turns completed
    long before the watermark); returns the days redone. A day whose turns are all gone (retention,
    privacy) keeps its rollups: they are the only count left of it."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(_BOT_DAYS_SQL, {"bot": bot_id, "tz": settings.TIME_ZONE})
        days = [row[0] for row in cursor.fetchall()]
        for day in days:
            turn_rollup_day_compute(cursor=cursor, bot_id=bot_id, day=day)
    return len(days)


def turn_rollup_day_compute(*, cursor: CursorWrapper, bot_id: str, day: date) -> None:
    zone = timezone.get_current_timezone()
    start = datetime.combine(day, datetime.min.time(), tzinfo=zone)
    params: dict[str, str | int | date | datetime | list[str]] = {
        "bot": bot_id,
        "day": day,
        "start": start,
        "end": start + timedelta(days=1),
        "buckets": HISTOGRAM_BUCKETS,
        "no_topic": list(NO_TOPIC),
        "answered": list(ANSWERED_STATUSES),
        "curated": CURATED_MODEL,
    }
    cursor.execute(_DELETE_SQL, params)
    cursor.execute(_INSERT_SQL, params)
