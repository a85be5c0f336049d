"""The audit app: who changed what that matters, from where, kept append-only for a configurable time."""

from __future__ import annotations

from django.apps import AppConfig, apps


class AuditConfig(AppConfig):
    name = "audit"
    default_auto_field = "django.db.models.BigAutoField"
    verbose_name = "Audit trail"

    def ready(self) -> None:
        # The audited models are named by label in one table (audit.registry) and connected here,
        # once every app's models are loaded; logins and failed logins are connected with them.
        audit_registry_connect()


def audit_registry_connect() -> None:
    """Register every audited model with django-auditlog and connect the login receivers (once)."""
    from auditlog.registry import auditlog
    from django.contrib.auth.signals import user_logged_in, user_login_failed

    from audit.registry import AUDITED
    from audit.services import login_failed_record, login_record

    for audited in AUDITED:
        model = apps.get_model(audited.label)
        if auditlog.contains(model):
            continue
        auditlog.register(
            model,
            include_fields=list(audited.include) or None,
            exclude_fields=list(audited.exclude) or None,
            mask_fields=list(audited.mask) or None,
            m2m_fields=set(audited.m2m) or None,
        )
    user_logged_in.connect(login_record, dispatch_uid="audit.login")
    user_login_failed.connect(login_failed_record, dispatch_uid="audit.login_failed")
