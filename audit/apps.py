"""The audit app: who changed what that matters, from where, kept append-only for a configurable time."""

from __future__ import annotations

from django.apps import AppConfig


class AuditConfig(AppConfig):
    name = "audit"
    default_auto_field = "django.db.models.BigAutoField"
    verbose_name = "Audit trail"

    def ready(self) -> None:
        # The audited models are named by label in one table (audit.registry) and connected here,
        # once every app's models are loaded; logins and failed logins are connected with them.
        from audit.registry import audit_registry_connect

        audit_registry_connect()
