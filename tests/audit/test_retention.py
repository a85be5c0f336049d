"""Retention: PARLEY_AUDIT_RETENTION_DAYS read from the environment (a bad value fails at start-up), and
the beat task deletes the entries older than that, and only those, past the append-only trigger."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.db import DatabaseError, transaction
from django.utils import timezone

from audit.models import AuditEntry
from audit.tasks import audit_entries_prune_task
from tests.api.factories import workspace_make
from tests.audit.helpers import entry_make

ROOT = Path(__file__).resolve().parents[2]
READ = "from django.conf import settings; print(settings.PARLEY_AUDIT_RETENTION_DAYS)"


def _settings_with(value: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PARLEY_AUDIT_RETENTION_DAYS": value}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    return subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {READ}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_retention_comes_from_the_environment_and_a_bad_value_fails_loudly() -> None:
    assert settings.PARLEY_AUDIT_RETENTION_DAYS == 365  # the documented default
    assert _settings_with("30").stdout.strip() == "30"
    refused = _settings_with("0")
    assert refused.returncode != 0 and "PARLEY_AUDIT_RETENTION_DAYS" in refused.stderr
    schedule = settings.CELERY_BEAT_SCHEDULE["audit-prune"]
    assert schedule["task"] == "audit.entries_prune" and schedule["schedule"] == 3600.0


@pytest.mark.django_db
def test_the_task_deletes_only_what_is_older_than_the_retention(settings) -> None:  # type: ignore[no-untyped-def]
    settings.PARLEY_AUDIT_RETENTION_DAYS = 30
    workspace = workspace_make()
    now = timezone.now()
    old = entry_make(workspace=workspace, at=now - timedelta(days=31))
    kept = entry_make(workspace=workspace, at=now - timedelta(days=29))
    assert audit_entries_prune_task() == 1
    assert not AuditEntry.objects.filter(pk=old.pk).exists()
    assert AuditEntry.objects.filter(pk=kept.pk).exists()
    assert audit_entries_prune_task() == 0
    # The prune's exception ends with it: the trigger refuses a delete again afterwards.
    with pytest.raises(DatabaseError), transaction.atomic():
        AuditEntry.objects.filter(pk=kept.pk).delete()
