"""The conversation admin's transcript (handoff.transcript): scoped like every admin page (an owner and a
teammate read it, a stranger reads nothing), built in three queries whatever the conversation's length, and
honest about answers that are pending or were never shown."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from conversations.models import Conversation, Turn
from core.models import Membership
from handoff.models import AgentProfile, Message, OwnerEvent
from handoff.transcript import conversation_transcript
from tests.support.factories import BotFactory, MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db
SECRET_QUESTION = "What is the code of the back door?"


def _client(user: object) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _turn(conversation: Conversation, text: str, *, at_seconds: int, **answer: object) -> Turn:
    turn = Turn.objects.create(conversation=conversation, client_message_id=text, user_text=text)
    created = timezone.now() - timedelta(hours=1) + timedelta(seconds=at_seconds)
    fields: dict[str, object] = {"created_at": created}
    if answer:
        fields |= {"completed_at": created + timedelta(seconds=1), **answer}
    Turn.objects.filter(pk=turn.pk).update(**fields)
    turn.refresh_from_db()
    return turn


@pytest.fixture
def tenancy() -> dict[str, object]:
    owner = MembershipFactory(role=Membership.Role.OWNER)
    teammate = MembershipFactory(workspace=owner.workspace, role=Membership.Role.OWNER)
    stranger = MembershipFactory()
    bot = BotFactory(workspace=owner.workspace)
    conversation = Conversation.objects.create(bot=bot, channel="widget")
    _turn(
        conversation,
        SECRET_QUESTION,
        at_seconds=0,
        status=Turn.Status.NOT_FOUND_IN_CONTEXT,
        answer="I could not find that.",
        reply_text="I could not find that.",
        confidence=0.0,
    )
    return {
        "conversation": conversation,
        "owner": owner.user,
        "teammate": teammate.user,
        "stranger": stranger.user,
    }


@pytest.mark.parametrize("who", ["owner", "teammate"])
def test_members_read_their_workspace_transcripts(tenancy: dict, who: str) -> None:
    conversation = tenancy["conversation"]
    client = _client(tenancy[who])

    listed = client.get("/admin/conversations/conversation/")
    page = client.get(f"/admin/conversations/conversation/{conversation.pk}/change/")

    assert str(conversation.pk) in listed.content.decode()
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="transcript"' in html and SECRET_QUESTION in html
    assert f"/admin/conversations/turn/{conversation.turns.get().pk}/change/" in html


def test_a_stranger_reads_nothing_of_another_workspace(tenancy: dict) -> None:
    conversation = tenancy["conversation"]
    client = _client(tenancy["stranger"])

    listed = client.get("/admin/conversations/conversation/")
    page = client.get(f"/admin/conversations/conversation/{conversation.pk}/change/", follow=True)
    audit = client.get(f"/admin/conversations/turn/{conversation.turns.get().pk}/change/")

    assert str(conversation.pk) not in listed.content.decode()
    assert SECRET_QUESTION not in page.content.decode()
    assert 'id="transcript"' not in page.content.decode()
    assert audit.status_code == 302  # the admin's "does not exist" redirect, as for a missing id


def test_the_transcript_interleaves_by_time_in_three_queries(
    tenancy: dict, django_assert_num_queries: object
) -> None:
    conversation = tenancy["conversation"]
    agent = UserFactory(username="nora")
    AgentProfile.objects.create(user=agent, display_name="Nora Lind")
    start = conversation.turns.get().created_at
    for index in range(5):
        _turn(
            conversation,
            f"question {index}",
            at_seconds=10 + 10 * index,
            status=Turn.Status.SMALL_TALK,
            answer=f"answer {index}",
            reply_text=f"answer {index}",
        )
    event = OwnerEvent.objects.create(
        conversation=conversation, from_owner="bot", to_owner="agent", actor="agent", agent=agent
    )
    message = Message.objects.create(
        conversation=conversation, role=Message.Role.AGENT, text="Nora here", author=agent
    )
    OwnerEvent.objects.filter(pk=event.pk).update(created_at=start + timedelta(seconds=25))
    Message.objects.filter(pk=message.pk).update(created_at=start + timedelta(seconds=26))

    with django_assert_num_queries(3):  # type: ignore[operator]
        entries = conversation_transcript(conversation_id=conversation.pk)

    texts = [entry.text for entry in entries]
    assert texts[:6] == [
        SECRET_QUESTION,
        "I could not find that.",
        "question 0",
        "answer 0",
        "question 1",
        "answer 1",
    ]
    assert texts[6:9] == [
        "Bot → Agent, by the agent Nora Lind (nora)",
        "Nora here",
        "question 2",
    ]
    assert entries[7].kind == "agent" and entries[7].author == "Nora Lind (nora)"
    assert [entry.at for entry in entries] == sorted(entry.at for entry in entries)


def test_the_conversation_page_costs_the_same_queries_however_long_it_is(tenancy: dict) -> None:
    conversation = tenancy["conversation"]
    client = _client(tenancy["owner"])
    agent = UserFactory(first_name="Nora")

    def opened() -> int:
        with CaptureQueriesContext(connection) as queries:
            page = client.get(f"/admin/conversations/conversation/{conversation.pk}/change/")
            assert page.status_code == 200
        return len(queries)

    short = opened()
    for index in range(6):
        _turn(conversation, f"q{index}", at_seconds=10 + index, status="small_talk", answer="a")
        Message.objects.create(
            conversation=conversation, role=Message.Role.AGENT, text=f"m{index}", author=agent
        )
        OwnerEvent.objects.create(
            conversation=conversation,
            from_owner="bot" if index % 2 == 0 else "agent",
            to_owner="agent" if index % 2 == 0 else "bot",
            actor="agent",
            agent=agent,
        )
    assert opened() == short


def test_pending_and_hidden_answers_say_so(tenancy: dict) -> None:
    conversation = tenancy["conversation"]
    pending = _turn(conversation, "still thinking?", at_seconds=30)
    hidden = _turn(
        conversation,
        "a hidden one",
        at_seconds=40,
        status=Turn.Status.FOUND_IN_CONTEXT,
        answer="The model's words.",
        reply_text="",
        display_answer=False,
        retrieved_chunks=[
            {"chunk_id": "c1", "document_id": "d1", "title": "Price list"},
            {"chunk_id": "c2", "document_id": "d2", "title": "Opening hours"},
            {"chunk_id": "c3", "document_id": "d1", "title": "Price list"},
        ],
        context_usage=[
            {"chunk": "c1", "used_in_response": True},
            {"chunk": "c2", "used_in_response": False},
            {"chunk": "c3", "used_in_response": True},
        ],
    )
    client = _client(tenancy["owner"])

    html = client.get(f"/admin/conversations/conversation/{conversation.pk}/change/")

    entries = {
        (e.turn_id, e.kind): e for e in conversation_transcript(conversation_id=conversation.pk)
    }
    assert entries[(pending.pk, "bot")].pending
    assert entries[(hidden.pk, "bot")].hidden
    assert entries[(hidden.pk, "bot")].sources == ("Price list",)
    page = html.content.decode()
    assert "No answer recorded" in page
    assert "Nothing shown to the visitor; the model's answer: The model&#x27;s words." in page
