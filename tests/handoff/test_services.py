"""Handoff services against the real database and Redis: owner moves, the claim race, the muted bot, timeouts."""

from __future__ import annotations

import json
import threading
import time

import pytest
from django.db import connection

from conversations.models import Conversation, Turn
from handoff.console import agent_queue, context_pack
from handoff.feedback import turn_feedback_record
from handoff.live import conversation_channel, queue_channel
from handoff.models import Handoff, HandoffPolicy, HandoffReason, Message, OwnerEvent, TurnFeedback
from handoff.selectors import conversation_history
from handoff.services import (
    HandoffError,
    agent_message_post,
    agent_profile_update,
    handoff_claim,
    handoff_open,
    handoff_resolve,
    handoff_return_to_bot,
    visitor_message_post,
)
from streams.redis_gateway import redis_sync
from streams.sse.buffer import stream_key
from tests.api.factories import bot_make, workspace_make
from tests.support.factories import MembershipFactory, UserFactory
from tests.support.processes import wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(90)]


def _setup() -> tuple[Conversation, object, object]:
    workspace = workspace_make()
    bot = bot_make(workspace)
    bot.escalation_allowed = True
    bot.save()
    conversation = Conversation.objects.create(bot=bot, channel="widget", visitor_id="v1")
    agents = []
    for name in ("alice", "bob"):
        user = UserFactory(
            username=f"{name}-{workspace.slug}", first_name=name.title(), is_staff=True
        )
        MembershipFactory(user=user, workspace=workspace)
        agents.append(user)
    return conversation, agents[0], agents[1]


def live_events(channel_stream_id: str) -> list[tuple[str, dict]]:
    entries = redis_sync().xrange(stream_key(channel_stream_id))
    return [(fields["e"], json.loads(fields["d"])) for _, fields in entries]


def test_open_claim_message_return_records_every_move_and_publishes_live() -> None:
    conversation, alice, _ = _setup()
    agent_profile_update(user=alice, display_name="  Alice \n")
    handoff = handoff_open(
        conversation_id=conversation.pk, reason=HandoffReason.VISITOR_REQUEST, detail="billing"
    )
    assert (
        handoff_open(conversation_id=conversation.pk, reason=HandoffReason.VISITOR_REQUEST).pk
        == handoff.pk
    )
    conversation.refresh_from_db()
    assert conversation.owner == "waiting_agent"
    assert [row["conversation_id"] for row in agent_queue(user=alice)] == [str(conversation.pk)]

    result = handoff_claim(conversation_id=conversation.pk, agent=alice)
    assert result.won and result.claimed_by_name == f"Alice ({alice.username})"  # for agents
    message = agent_message_post(
        conversation_id=conversation.pk, agent=alice, text="Hi, Alice here", client_message_id="a1"
    )
    assert (
        agent_message_post(
            conversation_id=conversation.pk, agent=alice, text="dup", client_message_id="a1"
        )
        == message
    )
    forwarded = visitor_message_post(
        conversation_id=conversation.pk, text="my invoice", client_message_id="v1"
    )
    assert forwarded["status"] == "forwarded_to_agent" and forwarded["owner"] == "agent"
    assert not Turn.objects.filter(conversation=conversation).exists()  # muted: no bot turn at all

    handoff_return_to_bot(conversation_id=conversation.pk, agent=alice)
    conversation.refresh_from_db()
    assert conversation.owner == "bot"
    moves = list(
        OwnerEvent.objects.filter(conversation=conversation).values_list(
            "from_owner", "to_owner", "actor"
        )
    )
    assert moves == [
        ("bot", "waiting_agent", "visitor"),
        ("waiting_agent", "agent", "agent"),
        ("agent", "bot", "agent"),
    ]
    assert Handoff.objects.get(pk=handoff.pk).outcome == "returned"
    with pytest.raises(HandoffError):
        visitor_message_post(conversation_id=conversation.pk, text="hello bot?")

    events = live_events(conversation_channel(conversation=conversation).stream_id)
    # (the bot's answer to "my invoice", left unanswered, comes from a worker: test_agent_console.py)
    names = [name for name, _ in events if name != "turn_answered"]
    assert names == [
        "owner_changed",
        "owner_changed",
        "agent_message",
        "visitor_message",
        "owner_changed",
    ]
    assert events[2][1]["text"] == "Hi, Alice here" and events[2][1]["author"] == "Alice"
    assert events[1][1]["agent"] == "Alice"  # the claim, as the widget announces it
    assert alice.username not in json.dumps(events)  # visitors never read the login
    queue_events = live_events(queue_channel(workspace_id=conversation.bot.workspace_id).stream_id)
    assert [data["change"] for _, data in queue_events] == ["waiting", "claimed", "returned"]
    roles = [item["role"] for item in conversation_history(conversation=conversation)]
    assert [role for role in roles if role != "bot"] == ["agent", "visitor"]


def test_reopening_after_return_opens_a_fresh_handoff_and_resolved_stays_closed() -> None:
    conversation, alice, _ = _setup()
    first = handoff_open(conversation_id=conversation.pk, reason=HandoffReason.HUMAN_ESCALATION)
    handoff_claim(conversation_id=conversation.pk, agent=alice)
    handoff_return_to_bot(conversation_id=conversation.pk, agent=alice)
    second = handoff_open(conversation_id=conversation.pk, reason=HandoffReason.LOW_CONFIDENCE)
    assert second.pk != first.pk
    assert handoff_claim(conversation_id=conversation.pk, agent=alice).won
    handoff_resolve(conversation_id=conversation.pk, agent=alice)
    with pytest.raises(HandoffError):
        handoff_open(conversation_id=conversation.pk, reason=HandoffReason.VISITOR_REQUEST)
    conversation.refresh_from_db()
    pack = context_pack(conversation=conversation)
    assert pack["owner"] == "resolved" and len(pack["owner_events"]) == 6


def test_two_agents_claim_at_once_and_exactly_one_wins() -> None:
    conversation, alice, bob = _setup()
    handoff_open(conversation_id=conversation.pk, reason=HandoffReason.VISITOR_REQUEST)
    barrier = threading.Barrier(2)
    results = {}

    def claim(agent: object) -> None:
        try:
            barrier.wait()
            results[agent.username] = handoff_claim(conversation_id=conversation.pk, agent=agent)
        finally:
            connection.close()

    threads = [threading.Thread(target=claim, args=(agent,)) for agent in (alice, bob)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    winners = [result for result in results.values() if result.won]
    losers = [result for result in results.values() if not result.won]
    assert len(winners) == 1 and len(losers) == 1
    assert losers[0].claimed_by_name == winners[0].claimed_by_name
    assert OwnerEvent.objects.filter(conversation=conversation, to_owner="agent").count() == 1
    loser = bob if results[bob.username] is losers[0] else alice
    with pytest.raises(HandoffError):
        agent_message_post(conversation_id=conversation.pk, agent=loser, text="me too")


def test_agent_of_another_workspace_sees_nothing() -> None:
    conversation, _, _ = _setup()
    outsider, _, _ = _setup()
    handoff_open(conversation_id=conversation.pk, reason=HandoffReason.VISITOR_REQUEST)
    stranger = UserFactory(username="stranger", is_staff=True)
    MembershipFactory(user=stranger, workspace=outsider.bot.workspace)
    assert agent_queue(user=stranger) == []


@pytest.mark.worker
def test_timeout_message_fires_through_the_real_worker(celery_worker: str) -> None:
    conversation, _, _ = _setup()
    HandoffPolicy.objects.create(
        bot=conversation.bot, timeout_seconds=1, timeout_text="Nobody is free; leave a note."
    )
    handoff = handoff_open(conversation_id=conversation.pk, reason=HandoffReason.VISITOR_REQUEST)
    started = time.monotonic()
    wait_for(
        lambda: Message.objects.filter(conversation=conversation, role="system").exists(),
        timeout=30,
        what="the timeout message",
    )
    assert time.monotonic() - started >= 0.9
    assert (
        Message.objects.get(conversation=conversation, role="system").text
        == "Nobody is free; leave a note."
    )
    assert Handoff.objects.get(pk=handoff.pk).timed_out_at is not None
    stream_id = conversation_channel(conversation=conversation).stream_id
    # The events go out after the worker's commit: a moment after the row is visible.
    wait_for(lambda: len(live_events(stream_id)) >= 3, timeout=10, what="the timeout's live events")
    assert [name for name, _ in live_events(stream_id)] == [
        "owner_changed",
        "system_message",
        "handoff_timed_out",
    ]
    # The visitor can still leave a message for the agents.
    assert (
        visitor_message_post(conversation_id=conversation.pk, text="call me")["owner"]
        == "waiting_agent"
    )


def test_feedback_is_one_row_per_turn_and_validated() -> None:
    conversation, _, _ = _setup()
    turn = Turn.objects.create(conversation=conversation, client_message_id="m1", user_text="q")
    turn_feedback_record(turn_id=turn.pk, rating="down", reasons=["wrong", "incomplete"])
    turn_feedback_record(turn_id=turn.pk, rating="up")
    assert TurnFeedback.objects.get(turn=turn).rating == "up"
    with pytest.raises(ValueError):
        turn_feedback_record(turn_id=turn.pk, rating="down", reasons=["rude"])
