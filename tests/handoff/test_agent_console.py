"""The agent side of issue 16, through the services and the console's views: display names (never the
login for visitors), the bot answering what an agent left unanswered after a return (once), returned
conversations kept in the agent's list until closed, queue rows with the last question and the
escalation kind, and a context pack with the real question and the sources of the answer."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from conversations.models import Conversation, Turn
from core.models import Membership
from handoff.console import agent_queue, context_pack
from handoff.live import conversation_channel
from handoff.models import AgentProfile, Handoff, HandoffReason, Message
from handoff.selectors import conversation_history, handoff_history_messages
from handoff.services import (
    AgentProfileError,
    HandoffError,
    agent_message_post,
    agent_profile_update,
    handoff_claim,
    handoff_console_close,
    handoff_open,
    handoff_pending_answer,
    handoff_resolve,
    handoff_return_to_bot,
    handoff_unanswered_messages,
    visitor_message_receive,
)
from streams.redis_gateway import redis_sync
from streams.sse.buffer import stream_key
from tests.api.factories import bot_make, workspace_make
from tests.support.factories import PASSWORD, MembershipFactory, UserFactory
from tests.support.processes import wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(120)]

ASK_HUMAN = "I want to talk to a human"  # the guard's request for a human: no model call
QUESTION = "How long does the battery take to charge?"
SENTENCE = "A full charge takes about four and a half hours."


def _conversation(*, locale: str = "en", beside: Conversation | None = None) -> Conversation:
    """A conversation on a new bot that hands off (in the workspace of ``beside``, if given)."""
    if beside is None:
        bot = bot_make(workspace_make())
    else:
        bot = bot_make(beside.bot.workspace, name=f"Helper {Conversation.objects.count()}")
    bot.escalation_allowed = True
    bot.locale = locale
    bot.save()
    return Conversation.objects.create(bot=bot, channel="widget", visitor_id="v1")


def _agent(conversation: Conversation, username: str) -> Any:
    user = UserFactory(username=username, first_name="Secret", last_name="Login", is_staff=True)
    MembershipFactory(user=user, workspace=conversation.bot.workspace, role=Membership.Role.AGENT)
    return user


def _answered(
    conversation: Conversation, *, status: str, text: str = QUESTION, **fields: Any
) -> Turn:
    """A completed turn as the pipeline stores it (its audit columns only where a test reads them)."""
    return Turn.objects.create(
        conversation=conversation,
        client_message_id=f"m-{Turn.objects.filter(conversation=conversation).count()}",
        user_text=text,
        status=status,
        route_action="show_answer",
        completed_at=timezone.now(),
        **fields,
    )


def _found(conversation: Conversation) -> Turn:
    return _answered(
        conversation,
        status=Turn.Status.FOUND_IN_CONTEXT,
        answer=SENTENCE,
        reply_text=SENTENCE,
        understanding="How long a full battery charge takes.",
        topic="Battery & charging",
        confidence=0.82,
        retrieved_chunks=[
            {"chunk_id": "c1", "document_id": "d1", "title": "Charging guide", "page": 2},
            {"chunk_id": "c2", "document_id": "d2", "title": "Winter storage", "page": None},
        ],
        context_usage=[
            {"chunk": "c1", "sentences": [SENTENCE], "used_in_response": True},
            {"chunk": "c2", "sentences": [], "used_in_response": False, "reason": "off topic"},
        ],
    )


def _events(conversation: Conversation) -> list[tuple[str, dict[str, Any]]]:
    entries = redis_sync().xrange(
        stream_key(conversation_channel(conversation=conversation).stream_id)
    )
    return [(fields["e"], json.loads(fields["d"])) for _, fields in entries]


def test_visitors_read_the_display_name_or_a_localised_label_never_the_login() -> None:
    english, french = _conversation(), _conversation(locale="fr-FR")
    alice, bob = _agent(english, "alice-login"), _agent(french, "bob-login")
    for conversation, agent in ((english, alice), (french, bob)):
        handoff_open(conversation_id=conversation.pk, reason=HandoffReason.VISITOR_REQUEST)
        handoff_claim(conversation_id=conversation.pk, agent=agent)
        agent_message_post(conversation_id=conversation.pk, agent=agent, text="Hello")

    # Unset: a neutral label in the bot's language, in the live events and in the history.
    assert [item["author"] for item in conversation_history(conversation=english)] == ["Agent"]
    assert [item["author"] for item in conversation_history(conversation=french)] == ["Conseiller"]
    assert _events(french)[1][1]["agent"] == "Conseiller"  # the claim the widget announces

    # Set (cleaned to one line), then cleared again; too long is refused and changes nothing.
    assert agent_profile_update(
        user=alice, display_name="  Alice \t from\nsupport "
    ).display_name == ("Alice from support")
    agent_message_post(conversation_id=english.pk, agent=alice, text="Still here")
    assert [item["author"] for item in conversation_history(conversation=english)] == [
        "Alice from support",
        "Alice from support",
    ]
    assert _events(english)[-1][1]["author"] == "Alice from support"
    with pytest.raises(AgentProfileError) as refused:
        agent_profile_update(user=alice, display_name="x" * 81)
    assert refused.value.code == "invalid_display_name"
    assert AgentProfile.objects.get(user=alice).display_name == "Alice from support"
    agent_profile_update(user=alice, display_name="   ")
    assert conversation_history(conversation=english)[0]["author"] == "Agent"

    published = json.dumps([_events(english), _events(french)])
    history = json.dumps([conversation_history(conversation=c) for c in (english, french)])
    for login in ("alice-login", "bob-login", "Secret Login"):
        assert login not in published and login not in history


def test_the_console_and_the_user_admin_set_the_display_name() -> None:
    conversation = _conversation()
    alice = _agent(conversation, "alice-console")
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    page = client.get("/agent/")
    assert "Your name shown to visitors" in page.content.decode()
    token = page.cookies["csrftoken"].value
    saved = client.post(
        "/agent/api/me",
        data={"display_name": "Alice"},
        content_type="application/json",
        headers={"X-CSRFToken": token},
    )
    assert saved.status_code == 200
    assert saved.json() == {
        "display_name": "Alice",
        "shown_as": "Alice",
        "console_name": "Alice (alice-console)",
    }
    too_long = client.post(
        "/agent/api/me",
        data={"display_name": "x" * 200},
        content_type="application/json",
        headers={"X-CSRFToken": token},
    )
    assert too_long.status_code == 400 and too_long.json()["code"] == "invalid_display_name"

    # An admin sets it on the user's own admin page (the inline this app adds to the User admin).
    admin = UserFactory(username="root", is_staff=True, is_superuser=True)
    admin_client = Client()
    assert admin_client.login(username="root", password=PASSWORD)
    url = f"/admin/auth/user/{alice.pk}/change/"
    form = admin_client.get(url)
    assert form.status_code == 200 and "name shown to visitors" in form.content.decode().lower()
    posted = admin_client.post(
        url,
        {
            "username": alice.username,
            "first_name": "",
            "last_name": "",
            "email": "",
            "is_active": "on",
            "is_staff": "on",
            "groups": [str(group.pk) for group in alice.groups.all()],
            "date_joined_0": "2026-01-01",
            "date_joined_1": "10:00:00",
            "agent_profile-TOTAL_FORMS": "1",
            "agent_profile-INITIAL_FORMS": "1",
            "agent_profile-MIN_NUM_FORMS": "0",
            "agent_profile-MAX_NUM_FORMS": "1",
            "agent_profile-0-user": str(alice.pk),
            "agent_profile-0-display_name": "  Alice   Martin ",
        },
    )
    assert posted.status_code == 302, posted.content.decode()[:2000]
    assert AgentProfile.objects.get(user=alice).display_name == "Alice Martin"
    assert admin.pk != alice.pk


def test_after_a_return_the_bot_answers_what_the_agent_left_unanswered_once() -> None:
    conversation = _conversation()
    alice = _agent(conversation, "alice-pending")
    visitor_message_receive(conversation_id=conversation.pk, client_message_id="q1", text=QUESTION)
    visitor_message_receive(conversation_id=conversation.pk, client_message_id="h1", text=ASK_HUMAN)
    handoff = Handoff.objects.get(conversation=conversation)
    early = visitor_message_receive(
        conversation_id=conversation.pk, client_message_id="v1", text="Is anyone there?"
    )
    assert early.muted
    handoff_claim(conversation_id=conversation.pk, agent=alice)
    agent_message_post(conversation_id=conversation.pk, agent=alice, text="Yes, how can I help?")
    first = visitor_message_receive(
        conversation_id=conversation.pk, client_message_id="v2", text="My charger light is orange."
    )
    second = visitor_message_receive(
        conversation_id=conversation.pk, client_message_id="v3", text="And the battery is warm."
    )
    assert first.muted and second.muted
    turns_before = Turn.objects.filter(conversation=conversation).count()
    handoff_return_to_bot(conversation_id=conversation.pk, agent=alice)

    # A session's test worker may run the task the return enqueued first: the same turn either way.
    handoff_pending_answer(handoff_id=handoff.pk)
    turn = Turn.objects.get(conversation=conversation, client_message_id=f"handoff/{handoff.pk}")
    # The two messages after the agent's reply, in order; not the one the agent answered.
    assert turn.user_text == "My charger light is orange.\n\nAnd the battery is warm."
    assert turn.client_message_id == f"handoff/{handoff.pk}"
    assert turn.completed_at is not None and turn.reply_text
    assert set(
        Message.objects.filter(answered_by=turn).values_list("client_message_id", flat=True)
    ) == {"v2", "v3"}
    # Its question is in the history once: the turn carries the messages from now on.
    assert [m.content for m in handoff_history_messages(conversation.pk)] == [
        "Is anyone there?",
        "(human agent) Yes, how can I help?",
    ]
    texts = [item["text"] for item in conversation_history(conversation=conversation)]
    assert texts.count("My charger light is orange.") == 1 and turn.user_text not in texts

    def announced_now() -> list[dict[str, Any]]:
        return [data for name, data in _events(conversation) if name == "turn_answered"]

    # Whichever run recorded the answer announces it, after its commit: wait for that one.
    wait_for(lambda: bool(announced_now()), timeout=10, what="the pending answer's announcement")
    announced = announced_now()
    assert len(announced) == 1 and announced[0]["pending_answer"] is True
    assert announced[0]["turn_id"] == str(turn.pk) and announced[0]["answer"] == turn.reply_text

    # Exactly once: a second run finds nothing pending (a run cut short before the messages were
    # marked would replay the turn: its client message id); the visitor's own ids stay forwarded.
    assert handoff_pending_answer(handoff_id=handoff.pk) is None
    redelivered = visitor_message_receive(
        conversation_id=conversation.pk, client_message_id="v2", text="My charger light is orange."
    )
    assert redelivered.muted and redelivered.payload["owner"] == "bot"
    assert Turn.objects.filter(conversation=conversation).count() == turns_before + 1
    assert len([name for name, _ in _events(conversation) if name == "turn_answered"]) == 1

    # The next visitor message is the bot's as usual, announced to the console watching it.
    later = visitor_message_receive(
        conversation_id=conversation.pk, client_message_id="q2", text="Thanks, and in winter?"
    )
    assert later.created and not later.muted
    last_name, last = _events(conversation)[-1]
    assert last_name == "turn_answered" and last["question"] == "Thanks, and in winter?"
    assert last["pending_answer"] is False


def test_nothing_is_pending_when_the_agent_replied_last_or_the_visitor_asked_again() -> None:
    conversation = _conversation()
    alice = _agent(conversation, "alice-nothing")
    handoff_open(conversation_id=conversation.pk, reason=HandoffReason.VISITOR_REQUEST)
    visitor_message_receive(conversation_id=conversation.pk, client_message_id="v1", text="Hello?")
    handoff_claim(conversation_id=conversation.pk, agent=alice)
    agent_message_post(conversation_id=conversation.pk, agent=alice, text="Done, bye.")
    handoff_return_to_bot(conversation_id=conversation.pk, agent=alice)
    first = Handoff.objects.get(conversation=conversation)
    assert handoff_pending_answer(handoff_id=first.pk) is None

    # Unanswered, but the visitor asked for a human again before the worker ran: it waits for them.
    # (This handoff is written directly: a return through the service would enqueue the task, which
    # a session's running test worker could take before the visitor asks again.)
    second = Handoff.objects.create(
        conversation=conversation, reason=HandoffReason.VISITOR_REQUEST, claimed_by=alice
    )
    Message.objects.create(conversation=conversation, role=Message.Role.VISITOR, text="Again?")
    Handoff.objects.filter(pk=second.pk).update(
        claimed_at=timezone.now(), closed_at=timezone.now(), outcome=Handoff.Outcome.RETURNED
    )
    assert [m.text for m in handoff_unanswered_messages(handoff=second)] == ["Again?"]
    handoff_open(conversation_id=conversation.pk, reason=HandoffReason.VISITOR_REQUEST)
    assert handoff_pending_answer(handoff_id=second.pk) is None
    assert not Turn.objects.filter(conversation=conversation).exists()


def test_a_returned_conversation_stays_in_the_agents_list_until_closed() -> None:
    conversation = _conversation()
    alice, bob = _agent(conversation, "alice-list"), _agent(conversation, "bob-list")
    handoff_open(conversation_id=conversation.pk, reason=HandoffReason.VISITOR_REQUEST)
    assert [row["state"] for row in agent_queue(user=alice)] == ["waiting"]
    handoff_claim(conversation_id=conversation.pk, agent=alice)
    assert [row["state"] for row in agent_queue(user=alice)] == ["mine"]
    assert agent_queue(user=bob) == []
    with pytest.raises(HandoffError):  # still hers: return or resolve it first
        handoff_console_close(conversation_id=conversation.pk, agent=alice)
    handoff_return_to_bot(conversation_id=conversation.pk, agent=alice)
    assert [(row["state"], row["owner"]) for row in agent_queue(user=alice)] == [("handled", "bot")]
    assert context_pack(conversation=conversation, viewer=alice)["closable"] is True
    assert agent_queue(user=bob) == []  # bob never held it
    with pytest.raises(HandoffError):
        handoff_console_close(conversation_id=conversation.pk, agent=bob)

    # Escalated again: one row, the new handoff's, waiting; the handled one comes back once bob has it.
    handoff_open(conversation_id=conversation.pk, reason=HandoffReason.VISITOR_REQUEST)
    assert [row["state"] for row in agent_queue(user=alice)] == ["waiting"]
    handoff_claim(conversation_id=conversation.pk, agent=bob)
    assert [row["state"] for row in agent_queue(user=alice)] == ["handled"]
    handoff_resolve(conversation_id=conversation.pk, agent=bob)
    assert agent_queue(user=bob) == []  # resolving closes it in the console too

    assert handoff_console_close(conversation_id=conversation.pk, agent=alice) == 1
    assert agent_queue(user=alice) == []
    with pytest.raises(HandoffError):
        handoff_console_close(conversation_id=conversation.pk, agent=alice)


def test_queue_rows_show_the_last_question_and_why_it_escalated_in_constant_queries() -> None:
    asked = _conversation()
    low, missed = _conversation(beside=asked), _conversation(beside=asked)
    alice = _agent(asked, "alice-queue")

    _found(asked)
    visitor_message_receive(conversation_id=asked.pk, client_message_id="h", text=ASK_HUMAN)
    _found(low)
    handoff_open(conversation_id=low.pk, reason=HandoffReason.LOW_CONFIDENCE)
    _answered(missed, status=Turn.Status.NOT_FOUND_IN_CONTEXT, text="Do you sell helmets?")
    _answered(missed, status=Turn.Status.NOT_FOUND_IN_CONTEXT, text="Any helmets at all?")
    visitor_message_receive(conversation_id=missed.pk, client_message_id="h", text=ASK_HUMAN)

    # Misses, then the "talk to a human" button (no turn of its own): asked, as the typed request is.
    pressed = _conversation(beside=asked)
    _answered(pressed, status=Turn.Status.NOT_FOUND_IN_CONTEXT, text="Helmets?")
    _answered(pressed, status=Turn.Status.NOT_FOUND_IN_CONTEXT, text="Gloves?")
    handoff_open(conversation_id=pressed.pk, reason=HandoffReason.VISITOR_REQUEST)
    # Misses, then the bot's own routing to a human (no request in words): repeated misses.
    routed = _conversation(beside=asked)
    _answered(routed, status=Turn.Status.NOT_FOUND_IN_CONTEXT, text="Saddles?")
    _answered(routed, status=Turn.Status.NOT_FOUND_IN_CONTEXT, text="Any saddles?")
    handoff_open(conversation_id=routed.pk, reason=HandoffReason.HUMAN_ESCALATION)

    rows = {row["conversation_id"]: row for row in agent_queue(user=alice)}
    assert rows[str(pressed.pk)]["escalation"] == "asked"
    assert rows[str(routed.pk)]["escalation"] == "repeated_misses"
    assert (rows[str(asked.pk)]["escalation"], rows[str(asked.pk)]["last_question"]) == (
        "asked",
        QUESTION,
    )
    assert rows[str(low.pk)]["escalation"] == "low_confidence"
    # "I want to talk to a human" after two misses is an explicit request (issue 26).
    assert (rows[str(missed.pk)]["escalation"], rows[str(missed.pk)]["last_question"]) == (
        "asked",
        "Any helmets at all?",
    )
    # A message the visitor leaves while waiting is in the transcript: the queue keeps the question
    # the bot last tried to answer.
    visitor_message_receive(conversation_id=asked.pk, client_message_id="w", text="Still waiting")
    with CaptureQueriesContext(connection) as three:
        rows = {row["conversation_id"]: row for row in agent_queue(user=alice)}
    assert rows[str(asked.pk)]["last_question"] == QUESTION

    for _ in range(3):
        more = Conversation.objects.create(bot=asked.bot, channel="widget", visitor_id="v")
        _found(more)
        handoff_open(conversation_id=more.pk, reason=HandoffReason.VISITOR_REQUEST)
    with CaptureQueriesContext(connection) as six:
        assert len(agent_queue(user=alice)) == 8
    assert len(six) == len(three)


def test_the_context_pack_has_the_real_question_its_understanding_and_the_answers_sources() -> None:
    conversation = _conversation()
    alice = _agent(conversation, "alice-pack")
    _found(conversation)
    visitor_message_receive(conversation_id=conversation.pk, client_message_id="h", text=ASK_HUMAN)
    escalated = Turn.objects.get(conversation=conversation, client_message_id="h")
    assert escalated.status == Turn.Status.HUMAN_ESCALATION

    pack = context_pack(conversation=conversation, viewer=alice)
    assert pack["question"] == QUESTION
    assert pack["understanding"] == "How long a full battery charge takes."
    assert (pack["topic"], pack["confidence"]) == ("Battery & charging", 0.82)
    assert pack["escalation"] == "asked" and pack["mine"] is False
    assert pack["sources"] == [
        {
            "chunk_id": "c1",
            "document_id": "d1",
            "title": "Charging guide",
            "page": 2,
            "sentences": [SENTENCE],
        }
    ]
    handoff_claim(conversation_id=conversation.pk, agent=alice)
    pack = context_pack(conversation=conversation, viewer=alice)
    assert pack["mine"] is True and pack["claimed_by"] == "alice-pack"


def test_a_request_for_a_human_alone_fills_the_queue_row_and_the_context_pack() -> None:
    """Issue 51: "I want to talk to a human" first (the guard catches it, nothing is retrieved) left
    the row's question and the panel's question, understanding, topic and confidence empty."""
    conversation = _conversation()
    alice = _agent(conversation, "alice-only-asked")
    visitor_message_receive(conversation_id=conversation.pk, client_message_id="h", text=ASK_HUMAN)
    escalated = Turn.objects.get(conversation=conversation, client_message_id="h")
    assert escalated.status == Turn.Status.HUMAN_ESCALATION

    (row,) = agent_queue(user=alice)
    assert (row["escalation"], row["last_question"]) == ("asked", ASK_HUMAN)
    pack = context_pack(conversation=conversation, viewer=alice)
    assert pack["question"] == ASK_HUMAN
    assert pack["understanding"] == escalated.understanding != ""
    assert (pack["topic"], pack["confidence"]) == (escalated.topic, escalated.confidence)
    assert pack["topic"] != "" and pack["confidence"] is not None
