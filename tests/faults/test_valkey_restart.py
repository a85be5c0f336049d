"""Valkey restarted in the middle of a streamed answer: the web process's relay breaks, the worker keeps
producing through the outage, /healthz reports the broker down then up, and the client resumes with
Last-Event-ID to read the rest of the answer, no event lost or twice. And a worker holding messages it
has not acknowledged yet (countdown tasks) comes back from the restart and goes on taking tasks."""

from __future__ import annotations

import uuid

import pytest

from config.celery import app as celery_app
from conversations.models import Turn
from core.models import WorkerProbe
from core.services import worker_probe_start
from core.tasks import worker_probe_complete
from tests.faults.conftest import (
    ANSWER,
    SENTENCE,
    Shop,
    health_probed,
    health_recovers,
    invariants_check,
    partial_text,
    stream_outcome,
    turn_through_outage,
)
from tests.support.llm_server import ScriptedLLMServer
from tests.support.outages import held, valkey_down
from tests.support.processes import broker_connection, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker, pytest.mark.timeout(120)]


def test_valkey_restarted_mid_stream_the_client_resumes_and_gets_the_whole_answer(
    shop: Shop, llm: ScriptedLLMServer
) -> None:
    # The model finishes while Valkey is down: the worker must hold its events until it is back.
    mid = turn_through_outage(shop, llm, outage=valkey_down, client_message_id="m-valkey")

    assert mid.health.status == 503 and mid.health.body["broker_ok"] is False
    assert mid.followed.reconnects >= 1  # the relay broke with Valkey, the client came back
    name, body = stream_outcome(mid.followed)
    assert name == "tool_end" and body["answer"] == ANSWER
    assert SENTENCE in partial_text(
        mid.followed
    )  # the deltas from before and after the outage join
    turn = Turn.objects.get(conversation=mid.conversation, client_message_id="m-valkey")
    assert turn.completed_at is not None and turn.answer == ANSWER
    assert health_recovers(shop.base)["broker_ok"] is True
    invariants_check()


def _scheduled(hostname: str) -> int:
    """The ETA tasks the worker holds (`celery inspect scheduled`), asked on a connection of its own."""
    with broker_connection() as connection:
        replies = celery_app.control.inspect(
            destination=[hostname], timeout=1, connection=connection
        ).scheduled()
    return len((replies or {}).get(hostname, []))


def test_a_worker_holding_countdown_tasks_outlives_a_valkey_restart(
    live_api: str, celery_worker: str
) -> None:
    """What a handoff leaves behind (its timeout check, due minutes later) is a message the worker holds
    unacknowledged; a Valkey restart must not take the worker down with it (kombu's channel crashed
    requeueing them), and the worker must go on taking tasks."""
    for _ in range(3):
        worker_probe_complete.apply_async((str(uuid.uuid4()),), countdown=600)
    wait_for(lambda: _scheduled(celery_worker) >= 3, timeout=15, what="the worker to hold them")
    with valkey_down():
        probed = health_probed(live_api)
        held(1.5)
    assert probed.status == 503 and probed.body["broker_ok"] is False
    assert health_recovers(live_api)["workers"] >= 1
    probe = worker_probe_start()
    wait_for(
        lambda: WorkerProbe.objects.filter(pk=probe.pk, completed_at__isnull=False).exists(),
        timeout=30,
        what="the worker to take a task after the restart",
    )
    invariants_check()
