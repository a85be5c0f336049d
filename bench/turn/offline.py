"""The offline default's own time: the composer, the whole turn and rag_search, before and after passages are
made at ingestion, in one run on the same workspace.

Before: the bench workspace's stored passages are dropped (as for chunks ingested before them), so the
composer splits and embeds the retrieved chunks on every question, as it always did. Then the passages of
every chunk those questions retrieve are made as ingestion makes them (timed against embedding the same
chunks' texts alone: the ingest cost added), and the same questions run again. The composer rows time
`offline_answer` alone on the turn's retrieved chunks (retrieval done, its query vector cached as in a turn).
"""

from __future__ import annotations

import time
import uuid

from django.conf import settings as django_settings

from bots.models import Bot
from conversations.adapters import bot_rules_from_settings
from conversations.llm.offline import offline_answer
from conversations.models import Conversation
from conversations.pipeline import turn_answer
from conversations.pipeline.rag_search import rag_search_answer
from conversations.pipeline.retrieve import embedder_for, estimator_for
from prompts.selectors import bot_settings_get
from rag.models import Chunk, ChunkPassages
from rag.passages.make import PassageSource, passages_make, passages_write
from rag.retrieval import RetrievalScope, chunks_retrieve
from rag.selectors import workspace_embedding_model, workspace_multilingual_model
from textmodels.embeddings import embedding_provider_get

COMPOSER_CHUNKS = 6


def offline_rows(bot: Bot, questions: list[str]) -> dict[str, list[float]]:
    """Per row name, milliseconds per question."""
    workspace_id = str(bot.workspace_id)
    ChunkPassages.objects.filter(chunk__workspace_id=workspace_id).delete()
    rows: dict[str, list[float]] = {}
    retrieved = _retrieved(bot, questions)
    _timed(bot, questions, retrieved, rows, suffix="before (split + embed per question)")
    made, embedded, count = _passages_make(workspace_id, retrieved)
    rows["ingest: passages made, per chunk"] = [made * 1000 / count]
    rows["ingest: chunk text embedded alone, per chunk"] = [embedded * 1000 / count]
    _timed(bot, questions, retrieved, rows, suffix="after (passages made at ingestion)")
    return rows


def _retrieved(bot: Bot, questions: list[str]) -> dict[str, list]:
    scope = RetrievalScope(workspace_id=str(bot.workspace_id), bot_ids=[str(bot.pk)])
    return {
        q: chunks_retrieve(scope=scope, question=q, top_k=COMPOSER_CHUNKS).hits for q in questions
    }


def _timed(
    bot: Bot, questions: list[str], retrieved: dict[str, list], rows: dict, *, suffix: str
) -> None:
    rules = bot_rules_from_settings(bot=bot_settings_get(bot_id=bot.pk))
    model_id = workspace_embedding_model(workspace_id=bot.workspace_id)
    embed = embedder_for(model_id=model_id)
    estimate = estimator_for(
        model_id=model_id,
        multi_model_id=workspace_multilingual_model(workspace_id=bot.workspace_id),
    )
    composer, turn, search = [], [], []
    for question in questions:
        started = time.perf_counter()
        offline_answer(
            question=question,
            chunks=retrieved[question],
            rules=rules,
            embed=embed,
            estimate=estimate,
            guard=None,  # a turn screens the message once, before the composer
        )
        composer.append((time.perf_counter() - started) * 1000)
        conversation = Conversation.objects.create(bot=bot)
        started = time.perf_counter()
        turn_answer(
            conversation_id=conversation.pk,
            client_message_id=uuid.uuid4().hex,
            message=question,
            endpoint=None,
        )
        turn.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        rag_search_answer(
            workspace_id=bot.workspace_id, query=question, bot_id=bot.pk, endpoint=None
        )
        search.append((time.perf_counter() - started) * 1000)
    rows[f"offline composer, {COMPOSER_CHUNKS} chunks, {suffix}"] = composer
    rows[f"whole turn, offline default, {suffix}"] = turn
    rows[f"rag_search server-side with audit, offline, {suffix}"] = search


def _passages_make(workspace_id: str, retrieved: dict[str, list]) -> tuple[float, float, int]:
    """Seconds to make (and store) the passages of the retrieved chunks with distinct texts as
    ingestion does, seconds to embed the same texts alone with the same models, and their count.

    The bench's chunks are replicas of a corpus (same text, vectors with noise): a question's six chunks
    are often one text six times, which `passages_make` would embed once against six chunk embeddings.
    Timing distinct texts only keeps the ratio what ingestion of distinct documents pays; the replicas
    then get the same passages, untimed."""
    ids = list(dict.fromkeys(hit.id for hits in retrieved.values() for hit in hits))
    chunks = list(
        Chunk.objects.filter(pk__in=ids).values_list("pk", "text", "document__title", "ordinal")
    )
    distinct = list(
        {text: (pk, text, title, ordinal) for pk, text, title, ordinal in chunks}.values()
    )
    model_id = workspace_embedding_model(workspace_id=workspace_id)
    multi_model_id = workspace_multilingual_model(workspace_id=workspace_id)
    sources = [
        PassageSource(text=text, title=title, starts_clean=True if ordinal == 0 else None)
        for _, text, title, ordinal in distinct
    ]
    started = time.perf_counter()
    made = passages_make(sources=sources, model_id=model_id, multi_model_id=multi_model_id)
    passages_write(chunks=[(pk, text) for pk, text, _, _ in distinct], made=made)
    made_seconds = time.perf_counter() - started
    by_text = {text: item for (_, text, _, _), item in zip(distinct, made, strict=True)}
    passages_write(
        chunks=[(pk, text) for pk, text, _, _ in chunks],
        made=[by_text[text] for _, text, _, _ in chunks],
    )
    texts = [text for _, text, _, _ in distinct]
    size = django_settings.PARLEY_EMBEDDING_BATCH_SIZE
    started = time.perf_counter()
    for model in filter(None, (model_id, multi_model_id)):
        provider = embedding_provider_get(model_id=model)
        for start in range(0, len(texts), size):
            provider.embed_texts(texts[start : start + size])
    return made_seconds, time.perf_counter() - started, len(distinct)
