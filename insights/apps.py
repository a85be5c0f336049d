"""The insights app: per-bot analytics, evaluation sets and runs, and the knowledge-gap loop."""

from __future__ import annotations

from django.apps import AppConfig


class InsightsConfig(AppConfig):
    name = "insights"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from insights.selectors.calibration import workspace_evaluation_pairs
        from rag.retrieval.calibration.pairs import question_source_register

        # rag's fusion calibration measures on the bots' evaluation cases before synthetic pairs
        question_source_register(workspace_evaluation_pairs)
