"""An erasure that fails half-way is left `failed` with its reason and its subject (never done with
half the data), then resumed: the sweep queues it, the real worker runs the task, which redoes the
steps idempotently and finishes."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from conversations.models import RagSearchExecution, Turn
from privacy.models import VisitorErasure
from privacy.services import erasure as erasure_service
from privacy.tasks import erasures_resume
from tests.api.factories import bot_make, workspace_make
from tests.privacy.planted import database_holding, files_left, redis_holding, visitor_plant
from tests.support.processes import wait_for

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
