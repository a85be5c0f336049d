"""The knowledge-gap loop: FAQ candidates from resolved handoffs, reviewed in the admin and approved
into a document the bot then answers from (curated answers: test_curated.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from conversations.models import Conversation, Turn
from conversations.pipeline.retrieve import scope_for
from conversations.pipeline.run import answer_run
from core.models import Membership, Workspace
from core.permissions import workspace_admins_group_ensure
from handoff.models import Handoff, HandoffReason, Message
from insights.models import FaqCandidate
from insights.services.knowledge import (
    ReviewRefused,
    faq_candidate_approve,
    faq_candidates_collect,
)
from prompts.selectors import bot_settings_get
from rag.ingestion import document_ingest
from tests.support.factories import BotFactory, MembershipFactory
from tests.support.knowledge import document_ingested

pytestmark = pytest.mark.django_db

QUESTION = "Can I rent a tandem bike for two people?"
ANSWER = "Yes: tandems are rented at the Lyon shop only, for 40 euros a day, helmets included."


def _resolved_handoff(bot: object) -> Handoff:
    conversation = Conversation.objects.create(bot=bot, channel="widget")  # type: ignore[misc]
    turn = Turn.objects.create(
        conversation=conversation,
        client_message_id="m1",
        user_text=QUESTION,
        status="not_found_in_context",
        completed_at=timezone.now(),
    )
    opened = timezone.now() - timedelta(minutes=10)
    handoff = Handoff.objects.create(
        conversation=conversation,
        reason=HandoffReason.VISITOR_REQUEST,
        turn=turn,
        closed_at=timezone.now(),
        outcome=Handoff.Outcome.RESOLVED,
    )
    Handoff.objects.filter(pk=handoff.pk).update(opened_at=opened)
    agent = MembershipFactory(workspace=bot.workspace).user  # type: ignore[attr-defined]
    Message.objects.create(conversation=conversation, role="agent", text=ANSWER, author=agent)
    Handoff.objects.filter(pk=handoff.pk).update(closed_at=timezone.now())  # after the reply
    return handoff


def test_a_resolved_handoff_becomes_a_candidate_approved_into_a_document_the_bot_answers_from() -> (
    None
):
    workspace = Workspace.objects.create(name="Rentals", slug="rentals")
    bot = BotFactory(workspace=workspace)
    document_ingested(
        workspace=workspace, text="# Repairs\n\nFlat tyres are fixed while you wait.", bots=[bot]
    )
    handoff = _resolved_handoff(bot)
    assert faq_candidates_collect() == 1
    assert faq_candidates_collect() == 0  # once per handoff
    candidate = FaqCandidate.objects.get(handoff=handoff)
    assert (candidate.question, candidate.answer, candidate.status) == (QUESTION, ANSWER, "pending")

    # The admin edits the answer, then approves it.
    workspace_admins_group_ensure()
    client = Client()
    client.force_login(MembershipFactory(workspace=workspace, role=Membership.Role.OWNER).user)
    url = reverse("admin:insights_faqcandidate_change", args=[candidate.pk])
    edited = ANSWER + " Book a day ahead."
    response = client.post(url, {"question": QUESTION, "answer": edited, "_approve": "1"})
    assert response.status_code == 302
    candidate.refresh_from_db()
    assert candidate.status == "approved" and candidate.answer == edited
    document = candidate.document
    assert document is not None and list(document.bots.all()) == [bot]
    with pytest.raises(ReviewRefused):
        faq_candidate_approve(candidate_id=candidate.pk, question="x", answer="y", user=None)

    assert document_ingest(document_id=str(document.pk), claim_id="test-faq") == "ready"
    settings = bot_settings_get(bot_id=bot.pk)
    run = answer_run(
        bot=settings,
        question="Do you rent tandem bikes?",
        history=[],
        scope=scope_for(
            workspace_id=str(workspace.pk),
            bot_id=str(bot.pk),
            conversation_id=None,
            external_user_id="",
        ),
        endpoint=None,
    )
    assert run.chunks and run.chunks[0].document_id == str(document.pk)
    assert run.generated.outcome.enforced.answer.status.value == "found_in_context"
    assert "40 euros" in run.route.text
