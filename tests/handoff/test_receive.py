"""`visitor_message_receive`, the one entry point for a visitor's message: an escalation opens the
handoff all at once or not at all (a database failure, a killed process), and a client message id is
answered once across a handoff boundary."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator

import pytest
from django.conf import settings
from django.db import DatabaseError, connection

from config.celery import app as celery_app
from conversations.models import Conversation, Turn
from handoff.live import queue_channel
from handoff.models import Handoff, Message, OwnerEvent
from handoff.services import (
    handoff_claim,
    handoff_open,
    handoff_return_to_bot,
    visitor_message_receive,
)
from streams.redis_gateway import redis_sync
from streams.sse.buffer import stream_key
from tests.api.factories import bot_make, workspace_make
from tests.conftest import TEST_QUEUE
from tests.support.factories import MembershipFactory, UserFactory
from tests.support.processes import child_database_url, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(120)]

# The offline provider's guard routes this to a human: no model call, an escalation every time.
ASK_HUMAN = "I want to talk to a human"


@pytest.fixture
def conversation() -> Conversation:
    bot = bot_make(workspace_make())
    bot.escalation_allowed = True
    bot.save()
    return Conversation.objects.create(bot=bot, channel="widget", visitor_id="v1")


def _handoff_insert_trigger(body: str) -> Iterator[None]:
    """A BEFORE INSERT trigger on handoff_handoff: the failure lands after the owner move and its event,
    inside their transaction."""
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE FUNCTION handoff_insert_fault() RETURNS trigger LANGUAGE plpgsql AS "
            f"$$ BEGIN {body} RETURN NEW; END $$"
        )
        cursor.execute(
            "CREATE TRIGGER handoff_insert_fault BEFORE INSERT ON handoff_handoff "
            "FOR EACH ROW EXECUTE FUNCTION handoff_insert_fault()"
        )
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("DROP TRIGGER IF EXISTS handoff_insert_fault ON handoff_handoff")
            cursor.execute("DROP FUNCTION IF EXISTS handoff_insert_fault()")


@pytest.fixture
def failing_handoff_insert() -> Iterator[None]:
    yield from _handoff_insert_trigger("RAISE EXCEPTION 'injected failure before the handoff row';")


@pytest.fixture
def stalling_handoff_insert() -> Iterator[None]:
    yield from _handoff_insert_trigger("PERFORM pg_sleep(60);")


def _queue_events(conversation: Conversation) -> list[dict]:
    stream_id = queue_channel(workspace_id=conversation.bot.workspace_id).stream_id
    entries = redis_sync().xrange(stream_key(stream_id))
    return [json.loads(fields["d"]) for _, fields in entries if fields["e"] == "queue_changed"]


def _timeouts_queued(handoff: Handoff) -> int:
    """Timeout checks for this handoff on the broker: waiting on the test queue, or held (unacked,
    until their countdown) by a test worker another test module started."""
    with celery_app.connection_for_read() as broker:
        client = broker.default_channel.client
        waiting = [json.loads(entry) for entry in client.lrange(TEST_QUEUE, 0, -1)]
        held = [json.loads(entry)[0] for entry in client.hvals("unacked")]
    return sum(
        1
        for message in waiting + held
        if message["headers"]["task"] == "handoff.timeout_check"
        and str(handoff.pk) in message["headers"]["argsrepr"]
    )


def _assert_neither(conversation: Conversation) -> None:
    conversation.refresh_from_db()
    assert conversation.owner == "bot"
    assert not OwnerEvent.objects.filter(conversation=conversation).exists()
    assert not Handoff.objects.filter(conversation=conversation).exists()
    assert _queue_events(conversation) == []


def _assert_both(conversation: Conversation, turn: Turn) -> None:
    conversation.refresh_from_db()
    assert conversation.owner == "waiting_agent"
    moves = OwnerEvent.objects.filter(conversation=conversation)
    assert list(moves.values_list("from_owner", "to_owner", "actor")) == [
        ("bot", "waiting_agent", "bot")
    ]
    handoff = Handoff.objects.get(conversation=conversation)
    assert (handoff.reason, handoff.turn_id) == ("human_escalation", turn.pk)
    assert [event["change"] for event in _queue_events(conversation)] == ["waiting"]
    assert _timeouts_queued(handoff) == 1


def test_a_failure_before_the_handoff_row_leaves_neither_and_a_repeat_opens_both(
    conversation: Conversation, failing_handoff_insert: None
) -> None:
    with pytest.raises(DatabaseError, match="injected failure"):
        visitor_message_receive(
            conversation_id=conversation.pk, client_message_id="m1", text=ASK_HUMAN
        )
    _assert_neither(conversation)
    turn = Turn.objects.get(conversation=conversation, client_message_id="m1")
    assert turn.route_action == "open_handoff"  # the answer is stored; its handoff is not

    with connection.cursor() as cursor:
        cursor.execute("DROP TRIGGER handoff_insert_fault ON handoff_handoff")
    again = visitor_message_receive(
        conversation_id=conversation.pk, client_message_id="m1", text=ASK_HUMAN
    )
    assert again.escalated and not again.created and again.payload["owner"] == "waiting_agent"
    _assert_both(conversation, turn)
    # (Besides the bot's answer to the messages the agent left unanswered: test_agent_console.py.)
    assert (
        Turn.objects.filter(conversation=conversation)
        .exclude(client_message_id__startswith="handoff/")
        .count()
        == 1
    )


_CHILD = """
import django, sys, uuid
django.setup()
from handoff.services import visitor_message_receive
visitor_message_receive(conversation_id=uuid.UUID(sys.argv[1]), client_message_id="m1", text=sys.argv[2])
"""


def _stalled_in_the_trigger() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE wait_event = 'PgSleep' AND query ILIKE 'INSERT INTO \"handoff_handoff\"%%'"
        )
        return bool(cursor.fetchone()[0])


def test_a_process_killed_before_the_handoff_row_leaves_neither(
    conversation: Conversation, stalling_handoff_insert: None
) -> None:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": child_database_url(),
        "REDIS_URL": settings.REDIS_URL,
    }
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(conversation.pk), ASK_HUMAN],
        env=env,
        cwd=settings.BASE_DIR,
        start_new_session=True,
    )
    try:
        # The child has moved the owner and written its event, and now waits inside the INSERT.
        wait_for(_stalled_in_the_trigger, timeout=60, interval=0.1, what="the handoff INSERT")
        os.kill(child.pid, signal.SIGKILL)
        assert child.wait(timeout=10) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            os.kill(child.pid, signal.SIGKILL)
            child.wait()
    with connection.cursor() as cursor:  # the server notices the dead client when the sleep ends
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event = 'PgSleep'"
        )
    wait_for(lambda: not _stalled_in_the_trigger(), timeout=30, what="the killed backend")
    _assert_neither(conversation)
    assert Turn.objects.get(conversation=conversation).route_action == "open_handoff"


def test_one_client_message_id_is_answered_once_across_a_handoff(
    conversation: Conversation,
) -> None:
    agent = UserFactory(username="alice-receive", first_name="Alice", is_staff=True)
    MembershipFactory(user=agent, workspace=conversation.bot.workspace)

    answered = visitor_message_receive(
        conversation_id=conversation.pk, client_message_id="m1", text="Hello there"
    )
    assert answered.created and not answered.muted
    handoff_open(conversation_id=conversation.pk, reason="visitor_request")
    assert handoff_claim(conversation_id=conversation.pk, agent=agent).won

    # Answered by the bot before the handoff: replayed, not forwarded to the agent.
    replayed = visitor_message_receive(
        conversation_id=conversation.pk, client_message_id="m1", text="Hello there"
    )
    assert not replayed.created and not replayed.muted
    assert replayed.payload["turn_id"] == answered.payload["turn_id"]
    assert replayed.payload["owner"] == "agent"
    assert not Message.objects.filter(conversation=conversation).exists()

    forwarded = visitor_message_receive(
        conversation_id=conversation.pk, client_message_id="m2", text="Are you there?"
    )
    assert forwarded.muted and forwarded.message is not None
    handoff_return_to_bot(conversation_id=conversation.pk, agent=agent)

    # Forwarded to the agent before the return: replayed as forwarded, not answered by the bot.
    again = visitor_message_receive(
        conversation_id=conversation.pk, client_message_id="m2", text="Are you there?"
    )
    assert again.muted and again.message == forwarded.message
    assert again.payload == {"status": "forwarded_to_agent", "owner": "bot"}
    assert not Turn.objects.filter(conversation=conversation, client_message_id="m2").exists()
    assert Message.objects.filter(conversation=conversation, role="visitor").count() == 1
    # (Besides the bot's answer to the messages the agent left unanswered: test_agent_console.py.)
    assert (
        Turn.objects.filter(conversation=conversation)
        .exclude(client_message_id__startswith="handoff/")
        .count()
        == 1
    )
