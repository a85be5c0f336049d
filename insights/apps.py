"""The insights app: per-bot analytics, evaluation sets and runs, and the knowledge-gap loop."""

from __future__ import annotations

from django.apps import AppConfig


class InsightsConfig(AppConfig):
    name = "insights"
    default_auto_field = "django.db.models.BigAutoField"
