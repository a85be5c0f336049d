"""Write-side operations on sources: create one, ask for a sync (one at a time per source, queued after
commit), delete one (its documents retired first), dispatch the syncs whose schedule is due, and
re-queue syncs whose worker went silent."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Max, Q
from django.utils import timezone

from bots.models import Bot
from core.models import Workspace
from sources.errors import SourceError
from sources.models import Source, SourcePage, SourceSync
from sources.queue import sync_run_enqueue
from sources.sync.retire import page_retire
from sources.sync.runner import sync_stuck_after


def _enqueue(sync_id: uuid.UUID) -> None:
    key = str(sync_id)
    transaction.on_commit(lambda: sync_run_enqueue(sync_id=key))


def source_config_check(*, kind: str, config: Mapping[str, Any]) -> None:
    """A configuration the kind can use: a Git repository URL; a website's checked settings (http(s)
    start or sitemap URLs, patterns, caps). Raises a ParleyError of kind invalid."""
    if kind == Source.Kind.GIT:
        if not str(config.get("repository_url") or "").strip():
            raise SourceError("A Git source needs config.repository_url.")
        return
    if kind == Source.Kind.WEBSITE:
        from sources.website import website_config_validate

        website_config_validate(config)  # WebsiteConfigError (invalid) names the field
        return
    raise SourceError(f"Unknown kind of source {kind!r}: use website or git.")


def source_create(
    *,
    workspace: Workspace,
    name: str,
    kind: str,
    config: Mapping[str, Any],
    bots: Iterable[Bot] = (),
    credentials: Mapping[str, Any] | None = None,
    schedule_minutes: int = 0,
) -> Source:
    source_config_check(kind=kind, config=config)
    bots = list(bots)
    if any(bot.workspace_id != workspace.pk for bot in bots):
        raise SourceError("Every bot must belong to the source's workspace.")
    with transaction.atomic():
        source = Source.objects.create(
            workspace=workspace,
            name=name,
            kind=kind,
            config=dict(config),
            credentials=dict(credentials or {}),
            schedule_minutes=schedule_minutes,
        )
        source.bots.set(bots)
    return source


def source_sync_request(*, source: Source, trigger: str = "manual") -> tuple[SourceSync, bool]:
    """Queue a sync of the source (after commit), or return the one already queued or running:
    (sync, created). The partial unique constraint keeps one active sync per source whatever races."""
    try:
        with transaction.atomic():
            sync = SourceSync.objects.create(source=source, trigger=trigger)
            _enqueue(sync.pk)
            return sync, True
    except IntegrityError:
        active = SourceSync.objects.filter(
            source=source, status__in=[SourceSync.Status.QUEUED, SourceSync.Status.RUNNING]
        ).first()
        if active is None:  # it finished between the two statements: ask once more
            return source_sync_request(source=source, trigger=trigger)
        return active, False


def source_delete(*, source_id: uuid.UUID | str) -> None:
    """Retire every page's document (each with its chunks, in its own transaction), then the source."""
    for page in SourcePage.objects.filter(source_id=source_id).exclude(
        state=SourcePage.State.RETIRED
    ):
        page_retire(page=page, reason="source deleted")
    Source.objects.filter(pk=source_id).delete()


def sources_due_dispatch() -> int:
    """Queue a sync of each enabled, scheduled source whose last sync was asked for longer ago than its
    schedule; re-queue syncs whose worker went silent. Returns how many were queued."""
    now = timezone.now()
    queued = 0
    stale = SourceSync.objects.filter(
        Q(status=SourceSync.Status.RUNNING, heartbeat_at__lt=now - sync_stuck_after())
        | Q(status=SourceSync.Status.QUEUED, queued_at__lt=now - sync_stuck_after())
    )
    for sync_id in stale.values_list("pk", flat=True):
        with transaction.atomic():
            _enqueue(sync_id)
        queued += 1
    scheduled = Source.objects.filter(enabled=True, schedule_minutes__gt=0).annotate(
        last=Max("syncs__queued_at")
    )
    for source in scheduled:
        if source.last is None or source.last <= now - timedelta(minutes=source.schedule_minutes):
            _, created = source_sync_request(source=source, trigger="schedule")
            queued += int(created)
    return queued
