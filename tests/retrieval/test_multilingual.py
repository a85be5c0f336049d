"""The multilingual vector side: questions in other languages than the documents find their passage, the
three-way fusion in SQL equals its Python twin, bad input gives results or nothing (never an error), and the
background backfill / model switch never serves a mix of vector spaces."""

from __future__ import annotations

import pytest
from django.db import connection

from bots.models import Bot
from core.models import Workspace
from rag.embeddings.backfill import chunks_multilingual_backfill
from rag.models import Chunk
from rag.retrieval import RetrievalScope, chunks_retrieve
from rag.retrieval.fusion import FusionChoice, fused_ids
from rag.services import workspace_embedding_model_set
from tests.support.knowledge import document_ingested
from textmodels.embeddings import MULTI_MODEL_ID

pytestmark = pytest.mark.django_db

# One English page per topic (each its own document, so each is its own chunk).
PAGES = {
    "warranty.md": "# Battery warranty\n\nThe battery is covered by a warranty of two years from the day of "
    "delivery. A battery that holds less than 70 percent of its charge is replaced free of charge.",
    "delivery.md": "# Delivery times\n\nBikes in stock are delivered within three to five working days. "
    "Made-to-order bikes take four weeks to arrive at your door.",
    "hours.md": "# Opening hours\n\nThe showroom is open from 9 am to 7 pm, Tuesday to Sunday, and closed "
    "on Mondays and public holidays.",
    "prices.md": "# Rental prices\n\nA day rental costs 25 euros and includes a helmet and a lock. "
    "Children's bikes are half price.",
}
QUESTIONS = [
    ("Quelle est la garantie de la batterie ?", "warranty.md"),
    ("Wie lange dauert die Lieferung?", "delivery.md"),
    ("¿A qué hora abre la tienda los domingos?", "hours.md"),
    ("Combien coûte la location d'un vélo pour une journée ?", "prices.md"),
]


def _workspace(name: str) -> tuple[Workspace, Bot, RetrievalScope]:
    workspace = Workspace.objects.create(name=name, slug=name)
    bot = Bot.objects.create(workspace=workspace, name=f"{name} bot")
    for filename, text in PAGES.items():
        document_ingested(workspace=workspace, text=text, bots=[bot], filename=filename)
    return workspace, bot, RetrievalScope(workspace_id=str(workspace.pk), bot_ids=[str(bot.pk)])


def test_questions_in_other_languages_find_the_english_passage_through_the_multilingual_side() -> (
    None
):
    workspace, _, scope = _workspace("ws-multi-questions")
    stored = Chunk.objects.filter(workspace=workspace)
    assert stored.count() == len(PAGES)
    assert set(stored.values_list("embedding_multi_model", flat=True)) == {MULTI_MODEL_ID}
    for question, filename in QUESTIONS:
        result = chunks_retrieve(scope=scope, question=question, top_k=2)
        top = result.hits[0]
        assert top.source == filename, (question, [hit.source for hit in result.hits])
        # the English model's side is off for this question; its weight went to the multilingual side
        assert top.vector_rank is None and top.multi_rank is not None
        assert "vector:multilingual:text=0:" in result.fusion
        # the relevance is the estimate's probability, one scale whatever the language
        assert 0.0 <= top.score <= 1.0
    english = chunks_retrieve(scope=scope, question="How long does the delivery take?", top_k=1)
    assert english.hits[0].source == "delivery.md" and english.hits[0].vector_rank is not None


def test_the_three_way_sql_fusion_ranks_as_its_python_reference() -> None:
    _, _, scope = _workspace("ws-multi-twin")
    kwargs = {
        "scope": scope,
        "question": "When do the bikes arrive and what does the warranty cover?",
        "top_k": 20,
        "score_threshold": -1.0,
    }
    vector = [(h.id, h.vector_score) for h in chunks_retrieve(**kwargs, mode="vector").hits]
    multi = [(h.id, h.multi_score or 0.0) for h in chunks_retrieve(**kwargs, mode="multi").hits]
    text = [(h.id, h.text_score or 0.0) for h in chunks_retrieve(**kwargs, mode="text").hits]
    assert len(vector) == len(multi) == len(PAGES) and text
    for choice in (
        FusionChoice(
            method="rrf", rrf_k=10, vector_weight=0.5, multi_weight=0.25, text_weight=0.25
        ),
        FusionChoice(method="rrf", rrf_k=60, vector_weight=0.0, multi_weight=1.0, text_weight=0.5),
        FusionChoice(method="convex", vector_share=0.3, multi_share=0.5),
        FusionChoice(method="convex", vector_share=0.0, multi_share=0.6),
        FusionChoice(method="multi"),
    ):
        result = chunks_retrieve(**kwargs, choice=choice)
        expected = fused_ids(vector=vector, multi=multi, text=text, choice=choice)
        assert [hit.id for hit in result.hits] == expected, choice
        assert result.fusion == choice.label()


@pytest.mark.parametrize(
    "question",
    [
        "ᚠᚢᚦᚨᚱᚲ ᚷᚹ ᚺᚾᛁᛃ ᛇᛈᛉᛊ",  # runes: a script neither model knows
        "𓀀𓀁𓀂 𓀃𓀄",  # hieroglyphs
        "",
        "   ",
        "the of and to a in",  # stop words only
        "?!",
        "battery warranty delivery " * 160,  # 4,000 characters
        "Quelle est la garantie ? " + "x" * 3975,
    ],
)
def test_bad_questions_give_results_or_nothing_never_an_error(question: str) -> None:
    workspace = Workspace.objects.get_or_create(name="ws-multi-bad", slug="ws-multi-bad")[0]
    bot = Bot.objects.get_or_create(workspace=workspace, name="bad bot")[0]
    if not Chunk.objects.filter(workspace=workspace).exists():
        document_ingested(workspace=workspace, text=PAGES["warranty.md"], bots=[bot])
    scope = RetrievalScope(workspace_id=str(workspace.pk), bot_ids=[str(bot.pk)])
    for mode in ("hybrid", "vector", "multi", "text"):
        result = chunks_retrieve(scope=scope, question=question, mode=mode)  # type: ignore[arg-type]
        assert isinstance(result.hits, list)
        assert all(0.0 <= hit.score <= 1.0 for hit in result.hits)


def _multi_models(workspace: Workspace) -> set[str]:
    return set(
        Chunk.objects.filter(workspace=workspace).values_list("embedding_multi_model", flat=True)
    )


def test_the_backfill_gives_old_chunks_their_vectors_and_a_switch_never_mixes(settings) -> None:
    settings.PARLEY_EMBEDDING_MULTILINGUAL = (
        ""  # chunks stored before the multilingual side existed
    )
    workspace, _, scope = _workspace("ws-multi-backfill")
    assert _multi_models(workspace) == {""}
    question, filename = QUESTIONS[1]
    before = chunks_retrieve(
        scope=scope, question=question, top_k=4
    )  # full text alone: still works
    assert all(hit.multi_rank is None for hit in before.hits)

    settings.PARLEY_EMBEDDING_MULTILINGUAL = (
        MULTI_MODEL_ID  # the side turned on: nothing embedded yet
    )
    waiting = chunks_retrieve(scope=scope, question=question, top_k=4)
    assert all(hit.multi_rank is None for hit in waiting.hits)
    assert chunks_multilingual_backfill(workspace_id=workspace.pk, limit=2) == 2  # halfway
    halfway = chunks_retrieve(scope=scope, question=question, top_k=4, mode="multi").hits
    assert len(halfway) == 2  # only chunks of the current model's space are searched
    assert chunks_multilingual_backfill(workspace_id=workspace.pk) == len(PAGES) - 2
    assert _multi_models(workspace) == {MULTI_MODEL_ID}
    assert chunks_multilingual_backfill(workspace_id=workspace.pk) == 0  # idempotent
    after = chunks_retrieve(scope=scope, question=question, top_k=1)
    assert after.hits[0].source == filename and after.hits[0].multi_rank == 1

    # a chunk whose vector is of another space is never read as the current one
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE rag_chunk SET embedding_multi_model = 'local/another-model'"
            " WHERE workspace_id = %s AND text LIKE %s",
            [workspace.pk, "%delivered%"],
        )
    stale = chunks_retrieve(scope=scope, question=question, top_k=4, mode="multi").hits
    assert len(stale) == len(PAGES) - 1 and all("delivered" not in hit.text for hit in stale)
    assert chunks_multilingual_backfill(workspace_id=workspace.pk) == 1

    # switching the multilingual side off keeps the documents and drops that vector
    assert (
        workspace_embedding_model_set(
            workspace=workspace, embedding_model="local/all-MiniLM-L6-v2", multilingual_model=""
        )
        == 0
    )
    chunks_multilingual_backfill(workspace_id=workspace.pk)
    assert _multi_models(workspace) == {""}
    assert chunks_retrieve(scope=scope, question=question, mode="multi").hits == []
    english = chunks_retrieve(scope=scope, question="How long does the delivery take?", top_k=1)
    assert english.hits[0].source == filename  # the other sides still answer
