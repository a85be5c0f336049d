"""Thin Celery task of the audit app: the retention prune."""

from __future__ import annotations

from audit.services import audit_entries_prune
from core.typed_tasks import task


@task(name="audit.entries_prune")
def audit_entries_prune_task() -> int:
    """Delete the audit entries older than PARLEY_AUDIT_RETENTION_DAYS; how many went."""
    return audit_entries_prune()
