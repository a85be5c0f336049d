"""The knowledge-gap loop: FAQ candidates from resolved handoffs, reviewed in the admin and approved
into a document the bot then answers from (curated answers: test_curated.py)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from conversations.pipeline.retrieve import scope_for
from conversations.pipeline.run import answer_run
from core.models import Workspace
from insights.models import FaqCandidate
from insights.services.knowledge import (
    ReviewRefused,
    faq_candidate_approve,
    faq_candidates_collect,
)
from prompts.selectors import bot_settings_get
from rag.ingestion import document_ingest
from tests.insights.helpers import member_client, resolved_handoff
from tests.support.factories import BotFactory
from tests.support.knowledge import document_ingested

pytestmark = pytest.mark.django_db

QUESTION = "Can I rent a tandem bike for two people?"
ANSWER = "Yes: tandems are rented at the Lyon shop only, for 40 euros a day, helmets included."


def test_a_resolved_handoff_becomes_a_candidate_approved_into_a_document_the_bot_answers_from() -> (
    None
):
    workspace = Workspace.objects.create(name="Rentals", slug="rentals")
    bot = BotFactory(workspace=workspace)
    document_ingested(
        workspace=workspace, text="# Repairs\n\nFlat tyres are fixed while you wait.", bots=[bot]
    )
    handoff = resolved_handoff(bot=bot, question=QUESTION, answer=ANSWER)
    assert faq_candidates_collect() == 1
    assert faq_candidates_collect() == 0  # once per handoff
    candidate = FaqCandidate.objects.get(handoff=handoff)
    assert (candidate.question, candidate.answer, candidate.status) == (QUESTION, ANSWER, "pending")

    # The admin edits the answer, then approves it.
    client = member_client(bot)
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
