"""A conversation returned to the bot goes on with what the agent and the visitor said meanwhile."""

from __future__ import annotations

import json

import pytest

from bots.models import Bot
from conversations.models import Conversation
from core.models import Workspace
from handoff.models import HandoffReason
from handoff.services import (
    agent_message_post,
    handoff_claim,
    handoff_open,
    handoff_return_to_bot,
    visitor_message_receive,
)
from rag.models import Chunk
from tests.support.factories import MembershipFactory, UserFactory
from tests.support.knowledge import document_ingested
from tests.support.llm_server import Reply

pytestmark = pytest.mark.django_db

GUIDE = "# Bike rental\n\nA day rental costs 25 euros and includes a helmet. Child seats cost 5 euros a day."
PRICE = "A day rental costs 25 euros and includes a helmet."


def _found(chunk: Chunk) -> dict:
    return {
        "status": "found_in_context",
        "answer": "A day costs 25 euros.",
        "display_answer": True,
        "confidence_score": 0.9,
        "topic": "unknown",
        "suggested_topics": [],
        "understanding": "Day price.",
        "redirection_intent": None,
        "context_usage": [{"chunk": str(chunk.pk), "sentences": [PRICE], "used_in_response": True}],
    }


def test_the_bot_answers_after_a_return_with_the_agents_messages_in_its_history(
    llm, endpoint
) -> None:
    workspace = Workspace.objects.create(name="Rentals", slug="rentals")
    bot = Bot.objects.create(workspace=workspace, name="Rental bot", escalation_allowed=True)
    document_ingested(workspace=workspace, text=GUIDE, bots=[bot], filename="guide.md")
    chunk = Chunk.objects.get(text__contains="25 euros")
    conversation = Conversation.objects.create(bot=bot, channel="widget", visitor_id="v1")
    agent = UserFactory(username="alice-rentals", first_name="Alice", is_staff=True)
    MembershipFactory(user=agent, workspace=workspace)

    llm.enqueue(Reply.json(_found(chunk)))
    visitor_message_receive(
        conversation_id=conversation.pk,
        client_message_id="m1",
        text="Price of a day?",
        endpoint=endpoint,
    )

    handoff_open(conversation_id=conversation.pk, reason=HandoffReason.VISITOR_REQUEST)
    assert handoff_claim(conversation_id=conversation.pk, agent=agent).won
    visitor_message_receive(
        conversation_id=conversation.pk, text="Can I add a child seat?", client_message_id="v2"
    )
    agent_message_post(
        conversation_id=conversation.pk, agent=agent, text="Yes, child seats are available."
    )
    handoff_return_to_bot(conversation_id=conversation.pk, agent=agent)

    llm.enqueue(
        Reply.json(
            {
                "standalone_question": "What does a child seat cost per day?",
                "keywords": ["child seat"],
            }
        ),
        Reply.json(_found(chunk)),
    )
    visitor_message_receive(
        conversation_id=conversation.pk,
        client_message_id="m3",
        text="How much is it?",
        endpoint=endpoint,
    )
    condensing, answering = (json.dumps(request.messages) for request in llm.chat_requests()[1:3])
    for sent in (condensing, answering):
        assert "(human agent) Yes, child seats are available." in sent
        assert "Can I add a child seat?" in sent
    assert condensing.index("Price of a day?") < condensing.index("Can I add a child seat?")
