"""Shared setup of the insights tests: a logged-in workspace owner (test client or browser), a
curated answer embedded as the admin saves one, a handoff an agent resolved with an answer, and the
scripted LLM's answer for a day-price case."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.test import Client
from django.utils import timezone
from playwright.sync_api import Page

from bots.models import Bot
from conversations.curated_embeddings import curated_answer_embed
from conversations.models import Conversation, CuratedAnswer, Turn
from core.models import Membership, Workspace
from core.permissions import workspace_admins_group_ensure
from handoff.models import Handoff, HandoffReason, Message
from rag.models import Chunk
from tests.support.browser import admin_login
from tests.support.factories import PASSWORD, MembershipFactory
from tests.support.llm_server import Reply


def owner_of(workspace: Workspace) -> Any:
    """A new owner of the workspace (the group is ensured: a transactional test may have flushed it)."""
    workspace_admins_group_ensure()
    return MembershipFactory(workspace=workspace, role=Membership.Role.OWNER).user


def member_client(bot: Bot) -> Client:
    """A test client logged in as an owner of the bot's workspace."""
    client = Client()
    client.force_login(owner_of(bot.workspace))
    return client


def browser_login(page: Page, base: str, bot: Bot) -> None:
    """The browser logged in to the admin as an owner of the bot's workspace."""
    admin_login(page, base_url=base, username=owner_of(bot.workspace).username, password=PASSWORD)


def curated_answer_make(*, bot: Bot, question: str, answer: str) -> CuratedAnswer:
    curated = CuratedAnswer.objects.create(bot=bot, question=question, answer=answer)
    curated_answer_embed(curated_id=curated.pk)
    curated.refresh_from_db()
    return curated


def day_price_reply(chunk: Chunk, status: str) -> Reply:
    """The scripted model's answer: the day price from `chunk` when found (the chunk's first sentence
    when it does not hold that price: the support check removes a price no passage holds), else a miss."""
    found = status == "found_in_context"
    text = "A day costs 25 euros." if "25 euros" in chunk.text else chunk.text.split("\n")[-1]
    return Reply.json(
        {
            "status": status,
            "answer": text if found else "I could not find that.",
            "display_answer": True,
            "confidence_score": 0.9 if found else 0.1,
            "topic": "unknown",
            "suggested_topics": [],
            "understanding": "Day price.",
            "redirection_intent": None,
            "context_usage": [{"chunk": str(chunk.pk), "sentences": [], "used_in_response": found}],
        }
    )


def turn_answered(
    conversation: Conversation, n: int, text: str, status: str, confidence: float | None = None
) -> Turn:
    """A completed turn of the conversation (client message id m<n>), shown to the visitor."""
    return Turn.objects.create(
        conversation=conversation,
        client_message_id=f"m{n}",
        user_text=text,
        status=status,
        confidence=confidence,
        route_action="show_answer",
        completed_at=timezone.now(),
    )


def resolved_handoff(*, bot: Bot, question: str, answer: str) -> Handoff:
    """A missed question handed to an agent, who answered it before the handoff was resolved."""
    conversation = Conversation.objects.create(bot=bot, channel="widget")
    turn = turn_answered(conversation, 1, question, "not_found_in_context")
    handoff = Handoff.objects.create(
        conversation=conversation,
        reason=HandoffReason.VISITOR_REQUEST,
        turn=turn,
        closed_at=timezone.now(),
        outcome=Handoff.Outcome.RESOLVED,
    )
    Handoff.objects.filter(pk=handoff.pk).update(opened_at=timezone.now() - timedelta(minutes=10))
    agent = owner_of(bot.workspace)
    Message.objects.create(conversation=conversation, role="agent", text=answer, author=agent)
    Handoff.objects.filter(pk=handoff.pk).update(closed_at=timezone.now())  # after the reply
    return handoff


def api_turn_ask(raw: str, bot: Bot, message: str, cid: str) -> dict[str, Any]:
    """One turn of a new API conversation of the bot, with a server key; the answer's JSON."""
    conversation = Conversation.objects.create(bot=bot)
    response = Client(headers={"Authorization": f"Bearer {raw}"}).post(
        f"/api/v1/conversations/{conversation.pk}/turns",
        {"message": message, "client_message_id": cid},
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    body: dict[str, Any] = response.json()
    return body
