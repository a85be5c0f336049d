"""What an analytics view covers: one bot, a period [start, end) and a channel ("" for every channel).

The same scope filters the aggregates (as SQL parameters) and the turn changelist behind each figure
(as query-string parameters), so a figure and the list it links to count the same rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from django.urls import reverse

from conversations.models import Conversation

CHANNELS = (("", "All channels"), *Conversation.Channel.choices)


@dataclass(frozen=True)
class AnalyticsScope:
    bot_id: str
    start: datetime
    end: datetime
    channel: str = ""

    def sql_params(self) -> dict[str, Any]:
        return {"bot": self.bot_id, "start": self.start, "end": self.end, "channel": self.channel}

    def query(self) -> dict[str, str]:
        """The changelist parameters of this scope (see insights.admin.turn_filters)."""
        params = {
            "bot": self.bot_id,
            "period_start": self.start.isoformat(),
            "period_end": self.end.isoformat(),
        }
        if self.channel:
            params["channel"] = self.channel
        return params

    def turns_url(self, **filters: Any) -> str:
        """The analytics turn changelist for this scope narrowed by `filters` (field lookups or filter names)."""
        params = {**self.query(), **{key: str(value) for key, value in filters.items()}}
        return reverse("admin:insights_analyzedturn_changelist") + "?" + urlencode(params)


# Turns of the scope: completed ones only (a turn in flight has no status yet). The join runs on
# conversation_bot_channel and turn_conversation_created (see the insights migrations).
SCOPED_TURNS_SQL = """
SELECT t.id, t.created_at, t.status, t.confidence, t.topic, t.suggested_topics,
       t.route_action, t.route_reason
FROM conversations_turn AS t
JOIN conversations_conversation AS c ON c.id = t.conversation_id
WHERE c.bot_id = %(bot)s::uuid
  AND t.created_at >= %(start)s AND t.created_at < %(end)s
  AND t.completed_at IS NOT NULL
  AND (%(channel)s = '' OR c.channel = %(channel)s)
"""

# Handoffs of the scope, each classified by why it opened: the answer's confidence was below the bot's
# threshold; the visitor asked, with the button or in words ("I want to talk to a human", a turn of
# status human_escalation), whatever the turns before it; the bot routed to a human by itself right
# after missing twice in a row; else asked (the bot's routing read a wish for a human). An explicit
# request is never filed under the misses before it (issue 26). `turn_id` is the turn behind it: the
# one that opened it, else the last turn before it opened. handoff.console.escalation_kind says the same.
ESCALATIONS_SQL = """
SELECT h.id, h.opened_at, h.claimed_at, h.timed_out_at,
       coalesce(h.turn_id, before.last_turn_id) AS turn_id,
       CASE WHEN h.reason = 'low_confidence' THEN 'low_confidence'
            WHEN h.reason = 'visitor_request' OR opening.status = 'human_escalation' THEN 'asked'
            WHEN before.misses >= 2 THEN 'repeated_misses'
            ELSE 'asked' END AS kind
FROM handoff_handoff AS h
JOIN conversations_conversation AS c ON c.id = h.conversation_id
LEFT JOIN conversations_turn AS opening ON opening.id = h.turn_id
LEFT JOIN LATERAL (
    SELECT (array_agg(p.id ORDER BY p.created_at DESC))[1] AS last_turn_id,
           count(*) FILTER (WHERE p.status = 'not_found_in_context') AS misses
    FROM (SELECT t2.id, t2.created_at, t2.status FROM conversations_turn AS t2
          WHERE t2.conversation_id = h.conversation_id AND t2.created_at <= h.opened_at
            AND t2.id IS DISTINCT FROM h.turn_id
          ORDER BY t2.created_at DESC LIMIT 2) AS p
) AS before ON TRUE
WHERE c.bot_id = %(bot)s::uuid
  AND h.opened_at >= %(start)s AND h.opened_at < %(end)s
  AND (%(channel)s = '' OR c.channel = %(channel)s)
"""


def scope_from_params(params: Any) -> AnalyticsScope | None:
    """The scope named by a changelist's query string, or None when it names no bot and period."""
    try:
        start = datetime.fromisoformat(params.get("period_start", ""))
        end = datetime.fromisoformat(params.get("period_end", ""))
    except ValueError:
        return None
    bot = params.get("bot", "")
    if not bot or start.tzinfo is None or end.tzinfo is None:
        return None
    return AnalyticsScope(bot_id=bot, start=start, end=end, channel=params.get("channel", ""))
