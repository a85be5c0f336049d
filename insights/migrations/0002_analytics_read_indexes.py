"""Indexes the analytics rollups read by, on other apps' tables (turns, feedback, handoffs).

They are raw SQL with no model state: conversations and handoff keep their models to themselves,
and the indexes serve only this app's reads (insights.services.rollups, the escalations figure).
"""

from django.db import migrations

INDEXES = [
    ("insights_turn_completed", "conversations_turn", "completed_at"),
    ("insights_turn_created", "conversations_turn", "created_at"),
    ("insights_feedback_updated", "handoff_turnfeedback", "updated_at"),
    ("insights_handoff_opened", "handoff_handoff", "opened_at"),
]


class Migration(migrations.Migration):
    dependencies = [
        ("insights", "0001_evaluation_sets_runs_gap_clusters_and_rollups"),
        # Fixed names, never "__latest__": a later migration of those apps must not reorder an
        # applied history (the turns' and handoffs' columns indexed here exist since these).
        ("conversations", "0002_turn_and_security_event"),
        ("handoff", "0001_initial"),
    ]

    operations = [
        migrations.RunSQL(
            sql=f"CREATE INDEX IF NOT EXISTS {name} ON {table} ({column})",
            reverse_sql=f"DROP INDEX IF EXISTS {name}",
        )
        for name, table, column in INDEXES
    ]
