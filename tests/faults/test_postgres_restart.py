"""PostgreSQL restarted (a fast shutdown: every session cut) in the middle of a streamed answer and in the
middle of ingestion, with the real uvicorn server and Celery worker connected to it.

/healthz reports the database down, then up; the stream ends with its answer or an error event; a turn
the outage interrupted is answered when the client sends the same message again; every document ends
ready, each chunk once."""

from __future__ import annotations

import pytest
from django.core.files.base import ContentFile

from conversations.models import Conversation, Turn
from rag.models import Document
from rag.services import document_create
from tests.faults.conftest import (
    ANSWER,
    Probed,
    Shop,
    documents_finish,
    health_probed,
    health_recovers,
    invariants_check,
    manual_text,
    stream_outcome,
    turn_streamed,
    turn_through_outage,
)
from tests.support.llm_server import Reply, ScriptedLLMServer
from tests.support.outages import held, postgres_down
from tests.support.processes import wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker, pytest.mark.timeout(150)]


def _database_down_reported(probed: Probed) -> None:
    assert probed.status == 503 and probed.body["database_ok"] is False, probed.body
    assert probed.seconds < 10  # a load balancer's probe does not wait out the outage


def test_postgres_restarted_mid_stream_the_turn_is_answered(
    shop: Shop, llm: ScriptedLLMServer
) -> None:
    mid = turn_through_outage(shop, llm, outage=postgres_down, client_message_id="m-pg")
    _database_down_reported(mid.health)
    name, body = stream_outcome(mid.followed)
    if name == "error":  # the outage cost this delivery its answer: the client sends it again
        llm.enqueue(Reply(content=shop.answer_json))
        again = turn_streamed(shop, conversation=mid.conversation, client_message_id="m-pg")
        name, body = stream_outcome(again)
    assert name == "tool_end" and body["answer"] == ANSWER
    turn = Turn.objects.get(conversation=mid.conversation, client_message_id="m-pg")
    assert turn.completed_at is not None and turn.answer == ANSWER
    assert health_recovers(shop.base)["database_ok"] is True
    invariants_check()


def test_postgres_restarted_during_ingestion_every_document_ends_ready(shop: Shop) -> None:
    workspace = shop.bot.workspace
    documents = [
        document_create(
            workspace=workspace,
            file=ContentFile(manual_text(n, paragraphs=24).encode(), name=f"motor-{n}.txt"),
            bots=[shop.bot],
        )
        for n in range(3)
    ]
    ids = [document.pk for document in documents]

    def processing() -> bool:
        return Document.objects.filter(pk__in=ids, status="processing").exists()

    wait_for(processing, timeout=60, interval=0.05, what="ingestion to start")
    with postgres_down():
        _database_down_reported(health_probed(shop.base))
        held(1.5)

    documents_finish(ids, timeout=90, what="every document to finish after the restart")
    assert health_recovers(shop.base)["database_ok"] is True
    invariants_check()


def test_a_turn_a_dead_delivery_left_unanswered_is_answered_when_sent_again(
    shop: Shop, llm: ScriptedLLMServer
) -> None:
    """An outage longer than the pool's wait (or a worker lost mid-answer) leaves the turn row started but
    never completed; the client's retry of the same message must answer it, not replay the empty row."""
    from conversations.services import turn_start

    conversation = Conversation.objects.create(bot=shop.bot)
    turn_start(conversation_id=conversation.pk, client_message_id="m-dead", user_text="Price?")
    llm.enqueue(Reply(content=shop.answer_json))
    followed = turn_streamed(shop, conversation=conversation, client_message_id="m-dead")
    name, body = stream_outcome(followed)
    assert name == "tool_end" and body["answer"] == ANSWER
    turn = Turn.objects.get(conversation=conversation, client_message_id="m-dead")
    assert turn.completed_at is not None and turn.answer == ANSWER
    assert Turn.objects.filter(conversation=conversation).count() == 1
    invariants_check()
