"""The conversation's admin page reads as a transcript. A visitor asks the demo bot (offline provider) a
question, asks for a human, an agent claims and answers, the visitor writes again, the agent returns the
conversation to the bot, which answers that message, the visitor asks again and a second handoff times
out, all through the real services. In Chromium, a workspace member opens the conversation: every
question, answer (status, sources, confidence), agent and system message and owner change is listed in
time order, as the database holds them, each visitor text once, and each answer links to its audit."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from bots.models import Bot
from conversations.models import Conversation, Turn
from core.models import Membership
from handoff.models import AgentProfile, Handoff, Message, OwnerEvent
from handoff.services import (
    agent_message_post,
    handoff_claim,
    handoff_pending_answer,
    handoff_return_to_bot,
    handoff_timeout,
    visitor_message_receive,
)
from prompts.services.demo import demo_bot_ensure
from rag.models import Document
from tests.support.browser import admin_login, artifact_path
from tests.support.demo import demo_page_ingested
from tests.support.factories import PASSWORD, MembershipFactory, UserFactory
from tests.support.processes import wait_for

QUESTION = "How many working days does a delivery to Belgium take?"
SECOND_QUESTION = "How much does delivery cost?"
HUMAN = "I want to talk to a human agent please"
AGENT_REPLY = "Hello, Alice here: your parcel left our warehouse this morning."
WHILE_AGENT = "Thanks! Can I change the address?"


@dataclass(frozen=True)
class Line:
    at: datetime
    kind: str
    text: str


def _ask(conversation: Conversation, text: str) -> None:
    visitor_message_receive(
        conversation_id=conversation.pk, client_message_id=uuid.uuid4().hex, text=text
    )


def _conversation_played(bot: Bot, agent: Any) -> Conversation:
    conversation = Conversation.objects.create(bot=bot, channel="widget", visitor_id="visitor-1")
    _ask(conversation, QUESTION)
    _ask(conversation, HUMAN)
    handoff_claim(conversation_id=conversation.pk, agent=agent)
    agent_message_post(conversation_id=conversation.pk, agent=agent, text=AGENT_REPLY)
    _ask(conversation, WHILE_AGENT)
    handoff_return_to_bot(conversation_id=conversation.pk, agent=agent)
    # The bot answers the message the agent left; a session's test worker may run the task the
    # return enqueued first: the same turn either way, done once the message points at it.
    returned = Handoff.objects.get(conversation=conversation, outcome=Handoff.Outcome.RETURNED)
    handoff_pending_answer(handoff_id=returned.pk)
    wait_for(
        lambda: Message.objects.filter(
            conversation=conversation, answered_by__isnull=False
        ).exists(),
        timeout=60,
        what="the bot's answer to the message the agent left",
    )
    _ask(conversation, SECOND_QUESTION)
    _ask(conversation, HUMAN)
    waiting = Handoff.objects.get(conversation=conversation, closed_at__isnull=True)
    assert handoff_timeout(handoff_id=waiting.pk)
    return conversation


def _database_lines(conversation: Conversation) -> list[Line]:
    """What the database holds, each row where it happened: questions when they came, answers when
    recorded, messages and owner changes when written. A turn that answered the visitor's messages
    (after a return to the bot) has them for its question: they are listed once, as the messages."""
    answering = set(
        Message.objects.filter(conversation=conversation, answered_by__isnull=False).values_list(
            "answered_by_id", flat=True
        )
    )
    lines: list[Line] = []
    for turn in Turn.objects.filter(conversation=conversation):
        if turn.pk not in answering:
            lines.append(Line(turn.created_at, "visitor", turn.user_text))
        assert turn.completed_at is not None
        lines.append(Line(turn.completed_at, "bot", turn.reply_text))
    for message in Message.objects.filter(conversation=conversation):
        lines.append(Line(message.created_at, message.role, message.text))
    for event in OwnerEvent.objects.filter(conversation=conversation):
        lines.append(Line(event.created_at, "owner", f"{event.from_owner}>{event.to_owner}"))
    return sorted(lines, key=lambda line: line.at)


@pytest.mark.browser
@pytest.mark.timeout(180)
def test_a_member_reads_the_whole_conversation_in_order_with_each_answer_audited(
    page: Page, admin_base: str
) -> None:
    bot = demo_bot_ensure(workspace_slug="demo-transcript-browser")
    document = demo_page_ingested(bot=bot, filename="orders-and-delivery.md")
    alice = UserFactory(username="alice-transcript")
    AgentProfile.objects.create(user=alice, display_name="Alice Martin")
    MembershipFactory(user=alice, workspace=bot.workspace, role=Membership.Role.OWNER)
    conversation = _conversation_played(bot, alice)
    database = _database_lines(conversation)

    admin_login(page, base_url=admin_base, username=alice.username, password=PASSWORD)
    page.goto(f"{admin_base}/admin/conversations/conversation/{conversation.pk}/change/")
    entries = page.locator("#transcript > li")
    expect(entries.first).to_be_visible()
    page.screenshot(path=str(artifact_path("admin-conversation-transcript.png")), full_page=True)

    shown = [
        (
            entry.get_attribute("data-kind"),
            entry.locator(".transcript-text").inner_text(),
            entry.locator("time").get_attribute("datetime"),
        )
        for entry in entries.all()
    ]
    # Every row of the database, once, in its time order.
    assert [kind for kind, _, _ in shown] == [line.kind for line in database]
    times = [datetime.fromisoformat(at or "") for _, _, at in shown]
    assert times == sorted(times)
    for (kind, text, _), line in zip(shown, database, strict=True):
        if kind == "owner":
            source, target = line.text.split(">")
            labels = dict(Conversation.Owner.choices)
            assert f"{labels[source]} → {labels[target]}" in text
        else:
            assert text == line.text.strip()

    # The story as it happened, in that order; the message the bot answered after the return is
    # there once, followed by that answer.
    story = [(kind, text) for kind, text, _ in shown]
    assert [text for _, text in story].count(WHILE_AGENT) == 1
    left = Message.objects.get(conversation=conversation, text=WHILE_AGENT).answered_by
    assert left is not None and left.reply_text
    expected = [
        ("visitor", QUESTION),
        ("bot", "3 to 4"),
        ("visitor", HUMAN),
        ("owner", "Bot → Waiting for an agent"),
        ("owner", "Waiting for an agent → Agent, by the agent Alice Martin (alice-transcript)"),
        ("agent", AGENT_REPLY),
        ("visitor", WHILE_AGENT),
        ("owner", "Agent → Bot"),
        ("bot", left.reply_text.splitlines()[0]),
        ("visitor", SECOND_QUESTION),
        ("visitor", HUMAN),
        ("system", "No agent is available"),
    ]
    at = 0
    for kind, fragment in expected:
        at = next(
            i for i in range(at, len(story)) if story[i][0] == kind and fragment in story[i][1]
        )
        at += 1

    agent_entry = entries.filter(has_text=AGENT_REPLY)
    expect(agent_entry.locator(".transcript-who")).to_have_text(
        "Agent Alice Martin (alice-transcript)"
    )

    # The first answer: its status, sources (the document's title) and confidence, as recorded.
    first = Turn.objects.filter(conversation=conversation).order_by("created_at").first()
    assert first is not None and first.status == Turn.Status.FOUND_IN_CONTEXT
    answer = page.locator(f'#transcript > li[data-kind="bot"][data-turn="{first.pk}"]')
    expect(answer.locator(".transcript-status")).to_have_text("Found in context")
    assert first.confidence is not None
    expect(answer.locator(".transcript-confidence")).to_have_text(f"{first.confidence:.2f}")
    title = Document.objects.get(pk=document.pk).title
    expect(answer.locator(".transcript-sources")).to_have_text(title)

    escalated = Turn.objects.filter(conversation=conversation, user_text=HUMAN).first()
    assert escalated is not None
    handoff_answer = page.locator(f'#transcript > li[data-kind="bot"][data-turn="{escalated.pk}"]')
    expect(handoff_answer.locator(".transcript-status")).to_have_text(
        escalated.get_status_display()
    )

    # Each answer opens its audit: the turn's admin page.
    answer.locator("a.transcript-audit").click()
    page.wait_for_url(re.compile(rf".*/admin/conversations/turn/{first.pk}/change/$"))
    expect(page.locator("#content")).to_contain_text(QUESTION)
    page.screenshot(path=str(artifact_path("admin-conversation-turn-audit.png")), full_page=False)
