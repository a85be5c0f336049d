"""An erasure that fails half-way is left `failed` with its reason and its subject, or one killed
half-way is left `pending` (never done with half the data); then it is resumed: the sweep queues it,
the real worker runs the task, which redoes the steps idempotently and finishes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from datetime import timedelta

import psycopg
import pytest
from django.conf import settings
from django.core.management import call_command
from django.utils import timezone

from conversations.models import RagSearchExecution, Turn
from privacy.models import VisitorErasure
from privacy.services import erasure as erasure_service
from privacy.tasks import erasures_resume
from tests.api.factories import bot_make, workspace_make
from tests.privacy.planted import database_holding, files_left, redis_holding, visitor_plant
from tests.support.processes import child_database_url, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


class RedisWentAway(ConnectionError):
    pass


@pytest.mark.worker
def test_a_failed_erasure_is_resumed_by_the_worker(
    celery_worker: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = workspace_make()
    visitor = visitor_plant(workspace=workspace, bot=bot_make(workspace))

    def redis_down(scope: object) -> int:
        raise RedisWentAway("valkey at 127.0.0.1 refused the connection")

    steps = [
        (name, redis_down if name == "redis" else step) for name, step in erasure_service.STEPS
    ]
    monkeypatch.setattr(erasure_service, "STEPS", steps)
    with pytest.raises(RedisWentAway):
        call_command(
            "visitor_erase",
            "--workspace",
            str(workspace.pk),
            "--external-user-id",
            visitor.external_user_id,
        )
    erasure = VisitorErasure.objects.get(workspace=workspace)
    assert erasure.status == "failed" and erasure.error_code == "RedisWentAway"
    assert erasure.subject == visitor.external_user_id and erasure.attempts == 1
    # Half-way: the steps before Redis ran, the ones after did not.
    assert not RagSearchExecution.objects.filter(workspace=workspace).exists()
    assert Turn.objects.get(pk=visitor.turn_id).user_text == ""
    assert redis_holding([visitor.strings["stream"]])
    assert erasure.counts["turns"] == 1 and "redis" not in erasure.counts

    monkeypatch.undo()
    VisitorErasure.objects.filter(pk=erasure.pk).update(
        updated_at=timezone.now() - timedelta(minutes=5)
    )
    assert erasures_resume() == 1  # queued for the session's real worker
    wait_for(
        lambda: VisitorErasure.objects.filter(pk=erasure.pk, status="done").exists(),
        timeout=60,
        what="the worker to resume the erasure",
    )
    erasure.refresh_from_db()
    assert erasure.attempts == 2 and erasure.subject == "" and erasure.counts["redis"] >= 2
    assert erasure.counts["turns"] == 1  # emptied once: the second pass found nothing left
    assert database_holding(visitor.everything) == []
    assert redis_holding(visitor.everything) == []
    assert files_left(visitor.files) == []
    assert erasures_resume() == 0


@pytest.mark.worker
def test_an_erasure_killed_half_way_is_resumed(celery_worker: str) -> None:
    """`manage.py visitor_erase` in a process of its own, held on a row lock in its second step and
    killed there (SIGKILL: no handler runs): the row stays unfinished, and the worker finishes it."""
    workspace = workspace_make()
    visitor = visitor_plant(workspace=workspace, bot=bot_make(workspace))
    env = {**os.environ, "DATABASE_URL": child_database_url(), "REDIS_URL": settings.REDIS_URL}
    with psycopg.connect(child_database_url()) as locker:
        locker.execute(
            "SELECT 1 FROM conversations_ragsearchexecution WHERE workspace_id = %s FOR UPDATE",
            [workspace.pk],
        )
        process = subprocess.Popen(
            [
                sys.executable,
                "manage.py",
                "visitor_erase",
                "--workspace",
                str(workspace.pk),
                "--external-user-id",
                visitor.external_user_id,
            ],
            env=env,
            start_new_session=True,
        )
        try:
            wait_for(
                lambda: VisitorErasure.objects.filter(
                    workspace=workspace, counts__has_key="insights_copies"
                ).exists(),
                timeout=90,
                what="the erasure to reach its searches step",
            )
        finally:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
        locker.rollback()
    erasure = VisitorErasure.objects.get(workspace=workspace)
    assert erasure.status == "pending" and erasure.subject == visitor.external_user_id
    assert "turns" not in erasure.counts and database_holding(visitor.everything)

    VisitorErasure.objects.filter(pk=erasure.pk).update(
        updated_at=timezone.now() - timedelta(minutes=5)
    )
    assert erasures_resume() == 1
    wait_for(
        lambda: VisitorErasure.objects.filter(pk=erasure.pk, status="done").exists(),
        timeout=60,
        what="the worker to resume the killed erasure",
    )
    assert database_holding(visitor.everything) == []
    assert redis_holding(visitor.everything) == []
    assert files_left(visitor.files) == []
