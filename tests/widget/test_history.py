"""What the widget reads after a reload, through the public API with a widget key: each answer's
sources, explanation and feedback in the history, and the open handoff's state in the config."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from conversations.models import Conversation, Turn
from handoff.live import conversation_channel
from handoff.models import Handoff, HandoffPolicy
from handoff.services import handoff_timeout
from streams.live import live_stream_ensure
from tests.api.factories import bot_make, widget_key_make, workspace_make
from tests.handoff.test_api import ORIGIN, visitor_open
from tests.handoff.test_services import live_events

pytestmark = pytest.mark.django_db(transaction=True)


def _answered(conversation_id: str, n: int) -> Turn:
    """A shown answer that used the first of its two retrieved chunks."""
    turn = Turn.objects.create(
        conversation_id=conversation_id,
        client_message_id=f"m{n}",
        user_text=f"Question {n}?",
        status="found_in_context",
        route_action="show_answer",
        answer=f"The battery charges in {n} hours. Keep it indoors.",
        understanding=f"How long charging takes ({n}).",
        confidence=0.8,
        retrieved_chunks=[
            {"chunk_id": f"c{n}", "document_id": "d1", "title": "Battery guide", "page": 2},
            {"chunk_id": f"u{n}", "document_id": "d2", "title": "Unused notes"},
        ],
        context_usage=[
            {
                "chunk": f"c{n}",
                "sentences": [f"The battery charges in {n} hours."],
                "used_in_response": True,
            },
            {"chunk": f"u{n}", "sentences": [], "used_in_response": False, "reason": "off topic"},
        ],
    )
    turn.completed_at = timezone.now()  # after its creation: the answer follows the question
    turn.save(update_fields=["completed_at"])
    return turn


def _widget(*, explainability: bool = True) -> tuple[Client, dict[str, Any]]:
    bot = bot_make(workspace_make())
    bot.escalation_allowed, bot.explainability = True, explainability
    bot.save()
    client = Client()
    return client, visitor_open(client, widget_key_make(bot, origins=(ORIGIN,)).key)


def _history(client: Client, visitor: dict[str, Any]) -> list[dict[str, Any]]:
    url = f"/api/v1/conversations/{visitor['conversation_id']}/messages"
    response = client.get(url, headers=visitor["headers"])
    assert response.status_code == 200, response.content
    return response.json()


def test_the_history_keeps_each_answers_sources_explanation_and_feedback() -> None:
    client, visitor = _widget()
    first = _answered(visitor["conversation_id"], 1)
    _answered(visitor["conversation_id"], 2)
    response = client.post(
        f"/api/v1/turns/{first.pk}/feedback",
        data={"rating": "down", "reasons": ["incomplete"]},
        content_type="application/json",
        headers=visitor["headers"],
    )
    assert response.status_code == 200, response.content

    items = _history(client, visitor)
    assert [item["role"] for item in items] == ["visitor", "bot", "visitor", "bot"]
    answer = items[1]
    # The sources the answer used, numbered as the live answer numbers them; not the unused chunk.
    assert [(c["n"], c["chunk_id"], c["title"], c["page_number"]) for c in answer["citations"]] == [
        (1, "c1", "Battery guide", 2)
    ]
    assert answer["feedback"] == {"rating": "down", "reasons": ["incomplete"]}
    assert items[3]["feedback"] is None
    assert answer["understanding"] == "How long charging takes (1)."
    assert answer["confidence"] == 0.8
    assert answer["context_usage"][0]["sentences"] == ["The battery charges in 1 hours."]
    assert items[0]["citations"] == []  # the visitor's question carries none


def test_the_history_keeps_the_explanation_out_when_the_bot_does_not_explain() -> None:
    client, visitor = _widget(explainability=False)
    _answered(visitor["conversation_id"], 1)
    answer = _history(client, visitor)[1]
    assert answer["citations"][0]["chunk_id"] == "c1" and answer["feedback"] is None
    assert not {"understanding", "confidence", "context_usage"} & set(answer)


def test_the_history_reads_in_a_fixed_number_of_queries() -> None:
    client, visitor = _widget()
    _answered(visitor["conversation_id"], 1)
    with CaptureQueriesContext(connection) as one:
        _history(client, visitor)
    for n in range(2, 7):
        _answered(visitor["conversation_id"], n)
    with CaptureQueriesContext(connection) as six:
        assert len(_history(client, visitor)) == 12
    assert len(six.captured_queries) == len(one.captured_queries)


def test_the_config_carries_the_handoff_state_waiting_timed_out_and_message_left() -> None:
    client, visitor = _widget()
    url = f"/api/v1/conversations/{visitor['conversation_id']}"

    def state() -> dict[str, Any] | None:
        response = client.get("/api/v1/widget/config", headers=visitor["headers"])
        assert response.status_code == 200, response.content
        return response.json()["handoff"]

    assert state() is None
    response = client.post(
        f"{url}/handoff", data={}, content_type="application/json", headers=visitor["headers"]
    )
    assert response.status_code == 202, response.content
    waiting = state()
    assert (
        waiting is not None and waiting["timed_out"] is False and waiting["message_left"] is False
    )
    assert 0 <= waiting["wait_seconds"] < 60

    conversation = Conversation.objects.get(pk=visitor["conversation_id"])
    HandoffPolicy.objects.update_or_create(
        bot=conversation.bot, defaults={"timeout_text": "Nobody is here; leave a note."}
    )
    channel = conversation_channel(conversation=conversation)
    live_stream_ensure(channel=channel)
    assert handoff_timeout(handoff_id=Handoff.objects.get(conversation=conversation).pk)
    timed_out = state()
    assert timed_out is not None
    assert (timed_out["timed_out"], timed_out["timeout_text"], timed_out["message_left"]) == (
        True,
        "Nobody is here; leave a note.",
        False,
    )
    # The visitor's live events say so too, after the policy's message itself.
    names = [name for name, _ in live_events(channel.stream_id)]
    assert names[-2:] == ["system_message", "handoff_timed_out"]
    assert dict(live_events(channel.stream_id))["handoff_timed_out"] == {
        "text": "Nobody is here; leave a note."
    }
    history = _history(client, visitor)
    assert [(item["role"], item["text"]) for item in history] == [
        ("system", "Nobody is here; leave a note.")
    ]

    response = client.post(
        f"{url}/turns",
        data={"message": "Call me back, please.", "client_message_id": "left"},
        content_type="application/json",
        headers=visitor["headers"],
    )
    assert response.status_code == 202 and response.json()["status"] == "forwarded_to_agent"
    left = state()
    assert left is not None and left["message_left"] is True and left["timed_out"] is True
