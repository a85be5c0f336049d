"""Turn ids behind figures that the ORM cannot express as a plain filter (escalations by kind)."""

from __future__ import annotations

import uuid

from django.db import connection

from insights.selectors.scope import ESCALATIONS_SQL, AnalyticsScope

# The escalation kinds of ESCALATIONS_SQL in words: the analytics table and the turns' filter show these.
ESCALATION_KINDS = (
    ("asked", "Asked for a human"),
    ("low_confidence", "Low confidence"),
    ("repeated_misses", "Repeated misses"),
)
ESCALATION_LABELS = dict(ESCALATION_KINDS)
# Every handoff, whatever its kind: the status chart's "Human escalation" links here.
ESCALATION_ANY = "any"


_ESCALATION_TURNS_SQL = """
SELECT e.turn_id FROM ({escalations}) AS e WHERE (%(kind)s = 'any' OR e.kind = %(kind)s)
  AND e.turn_id IS NOT NULL
""".replace("{escalations}", ESCALATIONS_SQL)


def escalation_turn_ids(*, scope: AnalyticsScope, kind: str) -> list[uuid.UUID]:
    with connection.cursor() as cursor:
        cursor.execute(
            _ESCALATION_TURNS_SQL,
            {**scope.sql_params(), "kind": kind},
        )
        return [row[0] for row in cursor.fetchall()]
