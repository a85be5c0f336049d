"""Passages made at ingestion (rag.passages): stored with each chunk and read by the offline composer, which
then embeds only the question; the same answers as splitting and embedding at answer time; the background
backfill for chunks stored without them (the composer falls back meanwhile); bounded for any text."""

from __future__ import annotations

import time
from collections.abc import Sequence

import pytest
from django.db import connection

from conversations.llm.offline import offline_answer
from conversations.pipeline.retrieve import passages_lookup_for
from conversations.types import BotRules
from core.models import Workspace
from rag.embeddings import LOCAL_MODEL_ID, MULTI_MODEL_ID, embed_texts
from rag.models import Chunk, ChunkPassages
from rag.passages.backfill import chunks_passages_backfill
from rag.passages.prepared import PASSAGES_PER_CHUNK, chunk_units
from rag.passages.selectors import chunk_passages_get
from rag.retrieval import RetrievalScope, chunks_retrieve
from tests.support.knowledge import document_ingested

# Retrieval scores of a one-document workspace are low: the threshold is not what is tested here.
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


class CountingEmbed:
    """The workspace's model, counting the texts each call embeds."""

    def __init__(self, model_id: str = LOCAL_MODEL_ID) -> None:
        self.model_id = model_id
        self.calls: list[int] = []

    def __call__(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(len(texts))
        return embed_texts(list(texts), model_id=self.model_id)


def _ingested(name: str) -> tuple[Workspace, RetrievalScope]:
    workspace = Workspace.objects.create(name=name, slug=name)
    document_ingested(workspace=workspace, text=FAQ, filename="faq.md")
    return workspace, RetrievalScope(workspace_id=str(workspace.pk))


def _answer(question: str, scope: RetrievalScope, *, stored: bool) -> tuple[dict, CountingEmbed]:
    embed = CountingEmbed()
    hits = chunks_retrieve(scope=scope, question=question, top_k=3).hits
    answer = offline_answer(
        question=question,
        chunks=hits,
        rules=RULES,
        embed=embed,
        passages=passages_lookup_for(model_id=LOCAL_MODEL_ID) if stored else None,
    )
    return answer, embed


@pytest.mark.django_db
def test_ingestion_stores_each_chunks_passages_and_the_composer_embeds_only_the_question() -> None:
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
        now, embedded_now = _answer(question, scope, stored=False)
        made, embedded_made = _answer(question, scope, stored=True)
        assert made == now and made["status"] == "found_in_context", (made, now)
        assert embedded_made.calls[-1] == 1 < embedded_now.calls[-1]  # the question alone


@pytest.mark.django_db
def test_a_question_across_languages_reads_the_stored_multilingual_vectors() -> None:
    _, scope = _ingested("ws-passages-across")
    question = "Combien de temps prend la livraison ?"
    hits = chunks_retrieve(scope=scope, question=question, top_k=3).hits
    across = CountingEmbed(MULTI_MODEL_ID)
    kwargs = {"question": question, "chunks": hits, "rules": RULES, "embed": CountingEmbed()}
    now = offline_answer(**kwargs, across=across)  # type: ignore[arg-type]
    made = offline_answer(
        **kwargs,  # type: ignore[arg-type]
        across=across,
        passages=passages_lookup_for(model_id=LOCAL_MODEL_ID),
    )
    assert made == now and "Bikes in stock are delivered" in str(made["answer"])
    assert across.calls[-1] == 1


@pytest.mark.django_db
def test_chunks_stored_without_passages_are_answered_then_backfilled() -> None:
    workspace, scope = _ingested("ws-passages-backfill")
    question = "Can I return a bike?"
    expected, _ = _answer(question, scope, stored=True)
    ChunkPassages.objects.filter(chunk__workspace=workspace).delete()  # as chunks ingested before

    fallback, embedded = _answer(question, scope, stored=True)
    assert fallback == expected and embedded.calls[-1] > 1  # split and embedded at answer time
    total = Chunk.objects.filter(workspace=workspace).count()
    assert chunks_passages_backfill(workspace_id=workspace.pk, limit=1) == 1
    assert chunks_passages_backfill(workspace_id=workspace.pk) == total - 1
    assert chunks_passages_backfill(workspace_id=workspace.pk) == 0  # idempotent
    backfilled, embedded = _answer(question, scope, stored=True)
    assert backfilled == expected and embedded.calls[-1] == 1

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
