"""Seeded turns for the analytics tests: a varied, random mix (statuses, confidences, topics,
suggestions, channels, curated answers, handoffs claimed or timed out, feedback with reasons), and a
recount of each figure (SQL, and Python for the escalation kinds) written independently of
insights.selectors, to check the page against."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from django.db import connection
from django.utils import timezone

from bots.models import Bot
from conversations.models import Conversation, Turn, TurnStatus
from conversations.pipeline.curated import CURATED_MODEL
from handoff.models import Handoff, HandoffReason, TurnFeedback

STATUSES = [s.value for s in TurnStatus]


def turns_seed(*, bot: Bot, count: int, days: int = 10, seed: int = 7) -> list[Turn]:
    rng = random.Random(seed)
    now = timezone.now()
    turns: list[Turn] = []
    conversation = None
    for n in range(count):
        if n % 4 == 0:
            conversation = Conversation.objects.create(
                bot=bot, channel=rng.choice(["widget", "api"])
            )
        assert conversation is not None
        status = rng.choice(STATUSES)
        confidence = round(rng.random(), 3) if rng.random() < 0.9 else None
        topic = rng.choice(["unknown", "unknown", "Battery", "Orders", ""])
        suggested = rng.sample(["Helmets", "Insurance", "Tyres"], rng.randint(0, 2))
        route = "open_handoff" if status == "human_escalation" else "show_answer"
        curated = status == "found_in_context" and rng.random() < 0.2
        turn = Turn.objects.create(
            conversation=conversation,
            client_message_id=f"m{n}",
            user_text=f"question {n} about {rng.choice(['helmets', 'tyres', 'batteries'])}",
            status=status,
            confidence=confidence,
            topic=topic,
            suggested_topics=suggested if topic in ("unknown", "") else [],
            route_action=route,
            route_reason="answer",
            model=CURATED_MODEL if curated else "offline",
            completed_at=now,
        )
        at = now - timedelta(days=rng.randint(0, days - 1), hours=rng.randint(0, 3))
        Turn.objects.filter(pk=turn.pk).update(created_at=at)
        turn.created_at = at
        if route == "open_handoff" or (status == "found_in_context" and rng.random() < 0.1):
            claimed = rng.random() < 0.6
            handoff = Handoff.objects.create(
                conversation=conversation,
                reason=HandoffReason.HUMAN_ESCALATION
                if route == "open_handoff"
                else HandoffReason.LOW_CONFIDENCE,
                turn=turn,
                claimed_at=at + timedelta(seconds=rng.randint(5, 300)) if claimed else None,
                timed_out_at=None if claimed else at + timedelta(minutes=5),
                closed_at=at + timedelta(minutes=10),
                outcome=Handoff.Outcome.RESOLVED,
            )
            Handoff.objects.filter(pk=handoff.pk).update(opened_at=at + timedelta(seconds=1))
        if rng.random() < 0.3:
            down = rng.random() < 0.5
            TurnFeedback.objects.create(
                turn=turn,
                rating="down" if down else "up",
                reasons=rng.sample(["wrong", "incomplete"], rng.randint(1, 2)) if down else [],
            )
        turns.append(turn)
    return turns


_BASE = """
FROM conversations_turn t JOIN conversations_conversation c ON c.id = t.conversation_id
WHERE c.bot_id = %s AND t.created_at >= %s AND t.created_at < %s AND t.completed_at IS NOT NULL
  AND (%s = '' OR c.channel = %s)
"""
_STATUS_SQL = "SELECT t.status, count(*) {base} GROUP BY 1".replace("{base}", _BASE)


def _count(condition: str) -> str:
    """A count of the scoped turns meeting a condition written in this module (never input)."""
    return "SELECT count(*) {base} {condition}".replace("{base}", _BASE).replace(
        "{condition}", condition
    )


def recount(*, bot: Bot, start: datetime, end: datetime, channel: str = "") -> dict[str, Any]:
    """The page's figures recounted straight from the tables."""
    params: list[Any] = [bot.pk, start, end, channel, channel]
    with connection.cursor() as cursor:

        def one(sql: str) -> Any:
            cursor.execute(sql, params)
            return cursor.fetchone()[0]

        def pairs(sql: str) -> dict[Any, int]:
            cursor.execute(sql, params)
            return dict(cursor.fetchall())

        return {
            "turns": one(_count("")),
            "by_status": pairs(_STATUS_SQL),
            "deflected": one(
                _count(
                    " AND t.status IN ('found_in_context', 'small_talk')"
                    " AND t.route_action = 'show_answer'"
                    " AND t.id NOT IN (SELECT turn_id FROM handoff_handoff WHERE turn_id IS NOT NULL)"
                )
            ),
            "rated": one(_count(" AND t.id IN (SELECT turn_id FROM handoff_turnfeedback)")),
            "down": one(
                _count(
                    " AND t.id IN (SELECT turn_id FROM handoff_turnfeedback WHERE rating = 'down')"
                )
            ),
            "confidence_top": one(_count(" AND t.confidence >= 0.9")),
            "helmets": one(
                _count(" AND t.topic IN ('', 'unknown') AND t.suggested_topics @> '[\"Helmets\"]'")
            ),
            "curated": one(_count(" AND t.model = 'curated'")),
            "histogram": pairs(
                "SELECT least(floor(t.confidence * 10), 9)::int, count(*) {base}"
                " AND t.confidence IS NOT NULL GROUP BY 1".replace("{base}", _BASE)
            ),
            "topics": pairs(
                "SELECT t.topic, count(*) {base} AND t.topic NOT IN ('', 'unknown')"
                " GROUP BY 1".replace("{base}", _BASE)
            ),
            "escalations": _escalations(bot=bot, start=start, end=end, channel=channel),
            "wrong": one(
                _count(
                    " AND t.id IN (SELECT turn_id FROM handoff_turnfeedback"
                    " WHERE rating = 'down' AND 'wrong' = ANY(reasons))"
                )
            ),
        }


def _escalations(*, bot: Bot, start: datetime, end: datetime, channel: str) -> dict[str, Any]:
    """Handoffs opened in the period by kind, each with its timeouts: low confidence by its reason;
    asked when the visitor asked (the button, or a turn of status human_escalation); repeated misses
    when the two turns before it (other than its own) both missed; else asked."""
    kinds: dict[str, dict[str, int]] = {}
    handoffs = Handoff.objects.filter(
        conversation__bot=bot, opened_at__gte=start, opened_at__lt=end
    ).select_related("conversation")
    for handoff in handoffs:
        if channel and handoff.conversation.channel != channel:
            continue
        before = list(
            Turn.objects.filter(
                conversation=handoff.conversation, created_at__lte=handoff.opened_at
            )
            .exclude(pk__in=[handoff.turn_id] if handoff.turn_id else [])
            .order_by("-created_at")
            .values_list("status", flat=True)[:2]
        )
        opening = (
            Turn.objects.filter(pk=handoff.turn_id).values_list("status", flat=True).first()
            if handoff.turn_id
            else None
        )
        if handoff.reason == HandoffReason.LOW_CONFIDENCE:
            kind = "low_confidence"
        elif handoff.reason == HandoffReason.VISITOR_REQUEST or opening == "human_escalation":
            kind = "asked"
        elif before.count("not_found_in_context") >= 2:
            kind = "repeated_misses"
        else:
            kind = "asked"
        row = kinds.setdefault(kind, {"n": 0, "timeouts": 0, "claimed": 0})
        row["n"] += 1
        row["timeouts"] += handoff.timed_out_at is not None
        row["claimed"] += handoff.claimed_at is not None
    return kinds
