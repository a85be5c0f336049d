"""Valkey restarted in the middle of a streamed answer: the web process's relay breaks, the worker keeps
producing through the outage, /healthz reports the broker down then up, and the client resumes with
Last-Event-ID to read the rest of the answer, no event lost or twice."""

from __future__ import annotations

import threading
import uuid
from typing import Any

import pytest

from config.celery import app as celery_app
from conversations.models import Conversation, Turn
from core.models import WorkerProbe
from core.services import worker_probe_start
from core.tasks import worker_probe_complete
from tests.faults.conftest import (
    SENTENCE,
    Shop,
    health,
    health_recovers,
    invariants_check,
    partial_text,
    stream_outcome,
    turn_streamed,
)
from tests.support.llm_server import Reply, ScriptedLLMServer
from tests.support.outages import held, valkey_down
from tests.support.processes import wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker, pytest.mark.timeout(120)]


def test_valkey_restarted_mid_stream_the_client_resumes_and_gets_the_whole_answer(
    shop: Shop, llm: ScriptedLLMServer
) -> None:
    resume = threading.Event()
    llm.enqueue(Reply(content=shop.answer_json, pause_after=30, resume=resume, token_delay=0.01))
    conversation = Conversation.objects.create(bot=shop.bot)
    seen: dict[str, Any] = {}

    def restart_once(event: Any) -> None:
        if event.event != "tool_partial_update" or seen:
            return
        with valkey_down():
            seen["status"], seen["health"] = health(shop.base)
            resume.set()  # the model finishes while Valkey is down: the worker must hold its events
            held(1.5)
        seen["restarted"] = True

    followed = turn_streamed(
        shop, conversation=conversation, client_message_id="m-valkey", on_event=restart_once
    )

    assert seen["status"] == 503 and seen["health"]["broker_ok"] is False
    assert followed.reconnects >= 1  # the relay broke with Valkey, the client came back
    name, body = stream_outcome(followed)
    assert name == "tool_end" and body["answer"] == SENTENCE
    assert SENTENCE in partial_text(followed)  # the deltas from before and after the outage join
    turn = Turn.objects.get(conversation=conversation, client_message_id="m-valkey")
    assert turn.completed_at is not None and turn.answer == SENTENCE
    assert health_recovers(shop.base)["broker_ok"] is True
    invariants_check()


def _scheduled(hostname: str) -> int:
    """The ETA tasks the worker holds (`celery inspect scheduled`), asked on a connection of its own."""
    with celery_app.connection_for_write() as connection:
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
        status, body = health(live_api)
        held(1.5)
    assert status == 503 and body["broker_ok"] is False
    assert health_recovers(live_api)["workers"] >= 1
    probe = worker_probe_start()
    wait_for(
        lambda: WorkerProbe.objects.filter(pk=probe.pk, completed_at__isnull=False).exists(),
        timeout=30,
        what="the worker to take a task after the restart",
    )
    invariants_check()
