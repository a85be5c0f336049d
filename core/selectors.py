"""Read-side queries of the core app: the health report, a workspace's privacy settings."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from core.database import DatabaseSetupError, pgvector_status
from core.models import Workspace


@dataclass(frozen=True)
class HealthReport:
    database_ok: bool
    pgvector_version: str | None
    broker_ok: bool
    workers: int
    errors: dict[str, str]

    @property
    def ok(self) -> bool:
        return (
            self.database_ok
            and self.pgvector_version is not None
            and self.broker_ok
            and self.workers > 0
        )

    def as_json(self) -> dict[str, Any]:
        payload = asdict(self)
        payload["status"] = "ok" if self.ok else "fail"
        return payload


def health_report(*, worker_timeout: float = 1.0, database_timeout: int = 3) -> HealthReport:
    """Probe the database (on a connection of its own: an outage is reported within
    ``database_timeout`` seconds), pgvector, the broker and the live Celery workers."""
    # The process's Celery app (config's, which config/__init__.py loads with the settings): core
    # imports no app above it.
    from celery import current_app as app

    errors: dict[str, str] = {}
    database_ok = False
    pgvector_version = None
    try:
        status = pgvector_status(probe_timeout=database_timeout)
        database_ok = True
        pgvector_version = status.installed_version
        if pgvector_version is None:
            errors["pgvector"] = "the vector extension is not installed in this database"
    except DatabaseSetupError as exc:
        errors["database"] = str(exc)

    broker_ok = False
    workers = 0
    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=worker_timeout)
            broker_ok = True
            replies = app.control.ping(timeout=worker_timeout, connection=conn) or []
            workers = len(replies)
        if workers == 0:
            errors["workers"] = "no Celery worker answered the ping"
    except Exception as exc:  # kombu surfaces many transport errors; the report must not crash.
        errors["broker"] = f"{exc.__class__.__name__}: {exc}"
    return HealthReport(
        database_ok=database_ok,
        pgvector_version=pgvector_version,
        broker_ok=broker_ok,
        workers=workers,
        errors=errors,
    )


@dataclass(frozen=True)
class PrivacyPolicy:
    """A workspace's privacy settings (core.models.Workspace), as plain data for the apps above."""

    redact_stored: bool = False
    redact_before_llm: bool = False
    retention_days: int | None = None


def workspace_privacy_get(*, workspace_id: Any) -> PrivacyPolicy:
    """The workspace's privacy settings; the defaults (all off) for an unknown workspace."""
    row = (
        Workspace.objects.filter(pk=workspace_id)
        .values_list("redact_personal_data", "redact_before_llm", "retention_days")
        .first()
    )
    if row is None:
        return PrivacyPolicy()
    return PrivacyPolicy(redact_stored=row[0], redact_before_llm=row[1], retention_days=row[2])
