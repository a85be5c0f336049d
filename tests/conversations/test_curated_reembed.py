"""Curated answers left in a workspace's previous embedding model: the turn that finds them goes
through retrieval and queues their re-embedding; the real worker re-embeds them in the workspace's
model, and the next paraphrase gets the curated answer again."""

from __future__ import annotations

import pytest

from conversations.curated_embeddings import curated_answers_reembed
from conversations.models import CuratedAnswer
from conversations.pipeline.curated import CURATED_MODEL
from tests.api.factories import bot_make, server_key_make
from tests.insights.helpers import api_turn_ask, curated_answer_make
from tests.support.knowledge import document_ingested
from tests.support.processes import wait_for
from textmodels.embeddings import LOCAL_MODEL_ID

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(180)]

QUESTION = "Can I rent a tandem bike for two people?"
PARAPHRASE = "Can I rent a tandem for two?"
ANSWER = "Yes: tandems are rented at the Lyon shop only, for 40 euros a day."
PREVIOUS_MODEL = "openai/text-embedding-previous"


def _left_in_the_previous_model(curated: CuratedAnswer) -> None:
    CuratedAnswer.objects.filter(pk=curated.pk).update(
        embedding=[0.0] * 8 + [1.0], embedding_model=PREVIOUS_MODEL
    )


@pytest.mark.worker
def test_a_curated_answer_in_the_previous_model_is_re_embedded_by_the_worker(
    celery_worker: str,
) -> None:
    bot = bot_make(name="Rental bot")
    document_ingested(
        workspace=bot.workspace, text="# Rentals\n\nA day costs 25 euros.", bots=[bot]
    )
    raw, _ = server_key_make(bot.workspace)
    curated = curated_answer_make(bot=bot, question=QUESTION, answer=ANSWER)
    _left_in_the_previous_model(curated)

    first = api_turn_ask(raw, bot, PARAPHRASE, "m-1")

    assert first["model"] != CURATED_MODEL  # not comparable yet: retrieval answered
    wait_for(
        lambda: CuratedAnswer.objects.get(pk=curated.pk).embedding_model == LOCAL_MODEL_ID,
        timeout=90,
        what="the worker's re-embedding",
    )
    again = api_turn_ask(raw, bot, PARAPHRASE, "m-2")
    assert (again["model"], again["answer"]) == (CURATED_MODEL, ANSWER)


def test_re_embedding_touches_only_the_stale_answers_and_is_idempotent() -> None:
    bot = bot_make(name="Rental bot")
    kept = curated_answer_make(bot=bot, question="Do you rent helmets?", answer="Yes, 2 euros.")
    stale = curated_answer_make(bot=bot, question=QUESTION, answer=ANSWER)
    embedding_before = CuratedAnswer.objects.get(pk=kept.pk).embedding
    _left_in_the_previous_model(stale)

    assert curated_answers_reembed(bot_id=bot.pk) == 1
    assert curated_answers_reembed(bot_id=bot.pk) == 0
    stale.refresh_from_db()
    assert stale.embedding_model == LOCAL_MODEL_ID and len(stale.embedding) == 384
    assert CuratedAnswer.objects.get(pk=kept.pk).embedding == embedding_before
