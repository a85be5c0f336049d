"""After a return to the bot, the visitor's messages the agent left unanswered and the bot's one answer
to them, as every history renders them: the admin's transcript, the widget's history (the chat API) and
the agent console's context pack. Each shows each visitor text once, followed by the bot's answer; the
answering turn's question (those messages joined) is never listed beside them."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client

from conversations.models import Turn
from core.models import Membership
from handoff.models import Handoff, Message
from handoff.services import (
    agent_message_post,
    handoff_claim,
    handoff_pending_answer,
    handoff_return_to_bot,
    visitor_message_receive,
)
from handoff.transcript import conversation_transcript
from tests.api.factories import bot_make, widget_key_make, widget_session_open, workspace_make
from tests.handoff.pages import agent_make
from tests.support.factories import MembershipFactory
from tests.support.processes import wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(120)]

ORIGIN = "https://shop.example"
QUESTION = "How long does the battery take to charge?"
ASK_HUMAN = "I want to talk to a human"  # the guard's request for a human: no model call
LEFT = ("My charger light is orange.", "And the battery is warm.")
# One transcript line of the admin's page: its kind, its turn (if any) and its text.
TRANSCRIPT_ENTRY = re.compile(
    r'data-kind="(\w+)"(?: data-turn="([0-9a-f-]+)")?>.*?<p class="transcript-text">(.*?)</p>',
    re.DOTALL,
)


@dataclass
class Returned:
    """A conversation handed back to the bot with two visitor messages the agent did not answer."""

    conversation_id: str
    turn: Turn
    visitor_headers: dict[str, str]
    agent: Any
    owner: Any


@pytest.fixture
def returned() -> Returned:
    bot = bot_make(workspace_make())
    bot.escalation_allowed = True
    bot.save()
    key = widget_key_make(bot, origins=(ORIGIN,)).key
    visitor = widget_session_open(Client(), key, origin=ORIGIN)
    conversation_id = visitor["conversation_id"]
    agent = agent_make(username="alice-once", workspaces=[bot.workspace])
    owner = MembershipFactory(workspace=bot.workspace, role=Membership.Role.OWNER).user

    visitor_message_receive(conversation_id=conversation_id, client_message_id="q1", text=QUESTION)
    visitor_message_receive(conversation_id=conversation_id, client_message_id="h1", text=ASK_HUMAN)
    handoff = Handoff.objects.get(conversation_id=conversation_id)
    handoff_claim(conversation_id=conversation_id, agent=agent)
    agent_message_post(conversation_id=conversation_id, agent=agent, text="Yes, how can I help?")
    for index, text in enumerate(LEFT):
        left = visitor_message_receive(
            conversation_id=conversation_id, client_message_id=f"v{index}", text=text
        )
        assert left.muted  # forwarded to the agent, not answered by the bot
    handoff_return_to_bot(conversation_id=conversation_id, agent=agent)
    # A session's test worker may run the task the return enqueued first: the same turn either way.
    handoff_pending_answer(handoff_id=handoff.pk)
    wait_for(
        lambda: Message.objects.filter(answered_by__isnull=False).count() == len(LEFT),
        timeout=30,
        what="the pending answer's turn marked on the messages it answered",
    )
    turn = Turn.objects.get(client_message_id=f"handoff/{handoff.pk}")
    assert turn.completed_at is not None and turn.answer and turn.reply_text
    assert turn.user_text == "\n\n".join(LEFT)
    return Returned(
        conversation_id=conversation_id,
        turn=turn,
        visitor_headers=visitor["headers"],
        agent=agent,
        owner=owner,
    )


def _each_left_once_then_the_answer(
    lines: list[tuple[str, str, str]], turn: Turn, *, answer: str
) -> None:
    """``lines``: (who, text, turn id) in the order shown. Each message left for the agent is there
    once, in order, as the visitor's; the joined question is not; and the next line of the visitor or
    the bot after them is the answering turn's answer (owner changes and notices may come between)."""
    texts = [text for _, text, _ in lines]
    assert turn.user_text not in texts, texts
    assert [texts.count(text) for text in LEFT] == [1] * len(LEFT), texts
    positions = [texts.index(text) for text in LEFT]
    assert positions == sorted(positions)
    assert [lines[position][0] for position in positions] == ["visitor"] * len(LEFT)
    following = [line for line in lines[positions[-1] + 1 :] if line[0] in ("visitor", "bot")]
    assert following[:1] == [("bot", answer, str(turn.pk))], lines


def test_the_admin_transcript_lists_each_message_once_then_the_answer(returned: Returned) -> None:
    client = Client()
    client.force_login(returned.owner)

    page = client.get(f"/admin/conversations/conversation/{returned.conversation_id}/change/")

    assert page.status_code == 200
    lines = [
        (kind, html.unescape(text), turn)
        for kind, turn, text in TRANSCRIPT_ENTRY.findall(page.content.decode())
    ]
    _each_left_once_then_the_answer(lines, returned.turn, answer=returned.turn.reply_text)
    # A turn's own question keeps its line.
    assert [text for _, text, _ in lines].count(QUESTION) == 1
    # The messages carry the turn that answered them, as a turn's question carries its turn.
    assert {turn for _, text, turn in lines if text in LEFT} == {str(returned.turn.pk)}
    entries = conversation_transcript(conversation_id=returned.turn.conversation_id)
    assert [entry.kind for entry in entries[-2:]] == ["owner", "bot"]  # the return, then the answer


def test_the_widget_history_lists_each_message_once_then_the_answer(returned: Returned) -> None:
    response = Client().get(
        f"/api/v1/conversations/{returned.conversation_id}/messages",
        headers=returned.visitor_headers,
    )

    assert response.status_code == 200, response.content
    _each_left_once_then_the_answer(
        _history_lines(response.json()), returned.turn, answer=returned.turn.answer
    )


def test_the_console_context_pack_lists_each_message_once_then_the_answer(
    returned: Returned,
) -> None:
    client = Client()
    client.force_login(returned.agent)

    response = client.get(f"/agent/api/conversations/{returned.conversation_id}")

    assert response.status_code == 200, response.content
    _each_left_once_then_the_answer(
        _history_lines(response.json()["history"]), returned.turn, answer=returned.turn.answer
    )


def _history_lines(items: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    return [(item["role"], item["text"], item["turn_id"] or "") for item in items]
