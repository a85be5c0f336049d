"""The visitor's handoff endpoints with a widget key: history, asking for a human, feedback, and their scoping."""

from __future__ import annotations

import pytest
from django.test import Client

from conversations.models import Conversation, Turn
from handoff.models import Handoff, Message, OwnerEvent, TurnFeedback
from tests.api.factories import bot_make, widget_key_make, widget_session_open, workspace_make

pytestmark = pytest.mark.django_db(transaction=True)
ORIGIN = "https://shop.example"


def visitor_open(client: Client, key: str) -> dict:
    return widget_session_open(client, key, origin=ORIGIN)


def _widget(escalation_allowed: bool = True) -> str:
    bot = bot_make(workspace_make())
    bot.escalation_allowed = escalation_allowed
    bot.save()
    return widget_key_make(bot, origins=(ORIGIN,)).key


def test_visitor_asks_for_a_human_and_reads_the_history() -> None:
    client = Client()
    visitor = visitor_open(client, _widget())
    url = f"/api/v1/conversations/{visitor['conversation_id']}"
    response = client.post(
        f"{url}/handoff",
        data={"reason": "refund"},
        content_type="application/json",
        headers=visitor["headers"],
    )
    assert response.status_code == 202, response.content
    assert response.json()["owner"] == "waiting_agent"
    assert Conversation.objects.get(pk=visitor["conversation_id"]).owner == "waiting_agent"
    history = client.get(f"{url}/messages", headers=visitor["headers"])
    assert history.status_code == 200 and history.json() == []


def test_same_origin_get_without_origin_uses_the_referer() -> None:
    client = Client()
    visitor = visitor_open(client, _widget())
    headers = {key: value for key, value in visitor["headers"].items() if key != "Origin"}
    url = f"/api/v1/conversations/{visitor['conversation_id']}/messages"
    assert client.get(url, headers={**headers, "Referer": f"{ORIGIN}/products/"}).status_code == 200
    assert (
        client.get(url, headers={**headers, "Referer": "https://evil.example/"}).status_code == 401
    )


def test_handoff_refused_when_the_bot_does_not_allow_it() -> None:
    client = Client()
    visitor = visitor_open(client, _widget(escalation_allowed=False))
    response = client.post(
        f"/api/v1/conversations/{visitor['conversation_id']}/handoff",
        data={},
        content_type="application/json",
        headers=visitor["headers"],
    )
    assert response.status_code == 403
    assert Conversation.objects.get(pk=visitor["conversation_id"]).owner == "bot"


def test_visitor_reaches_only_their_own_conversation_and_turns() -> None:
    client = Client()
    key = _widget()
    mine, theirs = visitor_open(client, key), visitor_open(client, key)
    other_url = f"/api/v1/conversations/{theirs['conversation_id']}"
    assert client.get(f"{other_url}/messages", headers=mine["headers"]).status_code == 404
    assert (
        client.post(
            f"{other_url}/handoff",
            data={},
            content_type="application/json",
            headers=mine["headers"],
        ).status_code
        == 404
    )
    turn = Turn.objects.create(
        conversation_id=theirs["conversation_id"], client_message_id="m", user_text="q"
    )
    feedback = {"rating": "down", "reasons": ["wrong"]}
    response = client.post(
        f"/api/v1/turns/{turn.pk}/feedback",
        data=feedback,
        content_type="application/json",
        headers=mine["headers"],
    )
    assert response.status_code == 404
    response = client.post(
        f"/api/v1/turns/{turn.pk}/feedback",
        data=feedback,
        content_type="application/json",
        headers=theirs["headers"],
    )
    assert response.status_code == 200, response.content
    assert TurnFeedback.objects.get(turn=turn).reasons == ["wrong"]
    bad = client.post(
        f"/api/v1/turns/{turn.pk}/feedback",
        data={"rating": "meh"},
        content_type="application/json",
        headers=theirs["headers"],
    )
    assert bad.status_code == 400


def test_bot_stays_silent_while_an_agent_owns_the_conversation() -> None:
    client = Client()
    visitor = visitor_open(client, _widget())
    url = f"/api/v1/conversations/{visitor['conversation_id']}"
    Conversation.objects.filter(pk=visitor["conversation_id"]).update(owner="agent")
    body = {"message": "are you there?", "client_message_id": "c1"}
    response = client.post(
        f"{url}/turns", data=body, content_type="application/json", headers=visitor["headers"]
    )
    assert response.status_code == 202, response.content
    assert response.json()["status"] == "forwarded_to_agent"
    again = client.post(
        f"{url}/turns", data=body, content_type="application/json", headers=visitor["headers"]
    )
    assert again.json()["message"]["id"] == response.json()["message"]["id"]  # idempotent
    assert not Turn.objects.filter(
        conversation_id=visitor["conversation_id"]
    ).exists()  # no LLM, no bot turn
    assert (
        Message.objects.filter(conversation_id=visitor["conversation_id"], role="visitor").count()
        == 1
    )


def test_a_pipeline_escalation_is_recorded_queued_and_timed() -> None:
    client = Client()
    visitor = visitor_open(client, _widget())
    response = client.post(
        f"/api/v1/conversations/{visitor['conversation_id']}/turns",
        data={"message": "I want to talk to a human", "client_message_id": "m"},
        content_type="application/json",
        headers=visitor["headers"],
    )
    assert response.status_code == 200 and response.json()["owner"] == "waiting_agent"
    turn = Turn.objects.get(conversation_id=visitor["conversation_id"], client_message_id="m")
    handoff = Handoff.objects.get(conversation_id=visitor["conversation_id"])
    assert handoff.reason == "human_escalation" and handoff.turn_id == turn.pk
    event = OwnerEvent.objects.get(conversation_id=visitor["conversation_id"])
    assert (event.from_owner, event.to_owner, event.actor) == ("bot", "waiting_agent", "bot")
