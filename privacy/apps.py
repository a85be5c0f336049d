"""The privacy app: visitors' data exported and erased on request, conversations past retention deleted."""

from __future__ import annotations

from django.apps import AppConfig


class PrivacyConfig(AppConfig):
    name = "privacy"
    default_auto_field = "django.db.models.BigAutoField"
    verbose_name = "Visitors' privacy"
