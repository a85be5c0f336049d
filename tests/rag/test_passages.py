"""Passages made at ingestion (rag.passages): stored with each chunk and read by the offline composer, which
then embeds only the question; the same answers as splitting and embedding at answer time; the background
backfill for chunks stored without them (the composer falls back meanwhile); bounded for any text."""

from __future__ import annotations

import time

import pytest
from django.db import connection

from conversations.llm.offline import offline_answer
from conversations.pipeline.retrieve import estimator_for
from conversations.types import BotRules
from core.models import Workspace
from rag.models import Chunk, ChunkPassages
from rag.passages.backfill import chunks_passages_backfill
from rag.passages.prepared import PASSAGES_PER_CHUNK, chunk_units
from rag.passages.selectors import chunk_passages_get
from rag.relevance import service as relevance_service
from rag.retrieval import RetrievalScope, chunks_retrieve
from tests.support.knowledge import document_ingested
from textmodels.embeddings import LOCAL_MODEL_ID, MULTI_MODEL_ID, embed_texts

# The threshold is not what is tested here.
RULES = BotRules(confidence_threshold=0.2)

FAQ = """# Returns and delivery

How long does delivery take?
Bikes in stock are delivered within three to five working days. Made-to-order bikes take four weeks.

Can I return a bike?
You can return a bike within 30 days of delivery. The bike must be unused and in its box.

| Country | Carrier | Days |
|---|---|---|
| Belgium | Lumen courier | 3 |
| Germany | Post | 5 |
"""


def _ingested(name: str) -> tuple[Workspace, RetrievalScope]:
    workspace = Workspace.objects.create(name=name, slug=name)
    document_ingested(workspace=workspace, text=FAQ, filename="faq.md")
    return workspace, RetrievalScope(workspace_id=str(workspace.pk))


def _answer(question: str, scope: RetrievalScope, monkeypatch) -> tuple[dict, list[int]]:  # type: ignore[no-untyped-def]
    """The offline answer (retrieval's estimate included) and the sizes of the embedding calls the
    relevance estimate made for units (none when every chunk's units are stored)."""
    calls: list[int] = []

    def counted(texts: list[str], *, model_id: str | None = None) -> list[list[float]]:
        calls.append(len(texts))
        return embed_texts(texts, model_id=model_id)

    monkeypatch.setattr(relevance_service, "embed_texts", counted)
    hits = chunks_retrieve(scope=scope, question=question, top_k=3).hits
    answer = offline_answer(
        question=question,
        chunks=hits,
        rules=RULES,
        embed=lambda texts: embed_texts(list(texts), model_id=LOCAL_MODEL_ID),
        estimate=estimator_for(model_id=LOCAL_MODEL_ID, multi_model_id=MULTI_MODEL_ID),
    )
    return answer, calls


@pytest.mark.django_db
def test_ingestion_stores_each_chunks_passages_and_the_answer_reads_them(monkeypatch) -> None:
    workspace, scope = _ingested("ws-passages-stored")
    chunks = Chunk.objects.filter(workspace=workspace)
    rows = ChunkPassages.objects.filter(chunk__in=chunks)
    assert rows.count() == chunks.count() > 0
    assert set(rows.values_list("model", flat=True)) == {LOCAL_MODEL_ID}
    assert set(rows.values_list("multi_model", flat=True)) == {MULTI_MODEL_ID}
    units = [unit[0] for row in rows for unit in row.units]
    assert "Belgium: Lumen courier, 3 days." in units  # a table row, written as a sentence
    assert "How long does delivery take?" not in units  # a FAQ's question is not quotable...
    assert any("How long does delivery take?" in row.asked for row in rows)  # ...but it is scored
    stored = chunk_passages_get(
        chunk_ids=[str(pk) for pk in chunks.values_list("pk", flat=True)], model_id=LOCAL_MODEL_ID
    )
    for hit in stored.values():
        assert hit.vectors.shape == (len(hit.units.units) + len(hit.units.asked), 384)
    assert chunk_passages_get(chunk_ids=list(stored), model_id="local/another-model") == {}

    for question in ("How long does delivery take?", "Can I return a bike after two weeks?"):
        made, calls = _answer(question, scope, monkeypatch)
        assert made["status"] == "found_in_context" and calls == [], (made, calls)


@pytest.mark.django_db
def test_a_question_across_languages_reads_the_stored_multilingual_vectors(monkeypatch) -> None:
    _, scope = _ingested("ws-passages-across")

    made, calls = _answer("Combien de temps prend la livraison ?", scope, monkeypatch)

    assert "Bikes in stock are delivered" in str(made["answer"]) and calls == []


@pytest.mark.django_db
def test_chunks_stored_without_passages_are_answered_then_backfilled(monkeypatch) -> None:
    workspace, scope = _ingested("ws-passages-backfill")
    question = "Can I return a bike?"
    expected, _ = _answer(question, scope, monkeypatch)
    ChunkPassages.objects.filter(chunk__workspace=workspace).delete()  # as chunks ingested before

    fallback, calls = _answer(question, scope, monkeypatch)
    assert fallback == expected and calls  # split and embedded at answer time, the same answer
    total = Chunk.objects.filter(workspace=workspace).count()
    assert chunks_passages_backfill(workspace_id=workspace.pk, limit=1) == 1
    assert chunks_passages_backfill(workspace_id=workspace.pk) == total - 1
    assert chunks_passages_backfill(workspace_id=workspace.pk) == 0  # idempotent
    backfilled, calls = _answer(question, scope, monkeypatch)
    assert backfilled == expected and calls == []

    # passages of a model the workspace left are made again; a re-ingested chunk takes its own along
    ChunkPassages.objects.filter(chunk__workspace=workspace).update(multi_model="local/old-model")
    assert chunks_passages_backfill(workspace_id=workspace.pk) == total
    ids = list(Chunk.objects.filter(workspace=workspace).values_list("pk", flat=True))
    with connection.cursor() as cursor:  # a raw DELETE, as a chunk swap's: the database cascades
        cursor.execute("DELETE FROM rag_chunk WHERE workspace_id = %s", [workspace.pk])
    assert not ChunkPassages.objects.filter(chunk_id__in=ids).exists()


@pytest.mark.parametrize(
    "text",
    [
        "The cat sat down. " * 5000,  # 5,000 sentences
        "x = compute(value) and other " * 3000,  # a code block: no sentence boundary at all
        "| a | b |\n" * 5000,  # a table without a header
    ],
)
def test_any_chunk_gives_bounded_passages_in_bounded_time(text: str) -> None:
    started = time.monotonic()
    units = chunk_units(text=text, starts_clean=True, ends_clean=True)
    assert time.monotonic() - started < 2.0  # 5,000 sentences took ~6 s unbounded
    assert len(units.units) <= PASSAGES_PER_CHUNK
    assert sum(len(unit.text) for unit in units.units) <= len(text)
