"""One timed turn on each side: Parley's `turn_answer`, and the LangChain baseline (PGVector retriever + the
same prompt builder + the same LLM stub). Each returns per-phase milliseconds and the ranked document ids."""

from __future__ import annotations

import json
import time
import uuid

from django.db import connection

from bench.turn.load import langchain_load
from bots.models import Bot
from conversations.models import Conversation, Turn
from conversations.pipeline import turn_answer
from core.llm.gateway import llm_complete
from core.llm.types import LLMEndpoint
from prompts.engine import Chunk as PromptChunk
from prompts.engine import prompt_build
from prompts.selectors import bot_settings_get
from rag.models import Document
from tests.support.llm_server import Reply, ScriptedLLMServer
from textmodels.embeddings import embed_query, embed_texts

STUB_ANSWER = {
    "status": "not_found_in_context",
    "answer": "Not in the documents.",
    "display_answer": True,
    "confidence_score": 0.1,
    "topic": "unknown",
    "suggested_topics": [],
    "understanding": "q",
    "redirection_intent": None,
    "context_usage": [],
}


def _endpoint(server: ScriptedLLMServer) -> LLMEndpoint:
    return LLMEndpoint(model="stub", base_url=server.base_url, api_key="k", max_retries=0)


def parley_turn(bot: Bot, question: str, server: ScriptedLLMServer) -> dict:
    server.enqueue(Reply.json(STUB_ANSWER))
    conversation = Conversation.objects.create(bot=bot)
    started = time.perf_counter()
    result = turn_answer(
        conversation_id=conversation.pk,
        client_message_id=uuid.uuid4().hex,
        message=question,
        endpoint=_endpoint(server),
    )
    total = (time.perf_counter() - started) * 1000
    turn: Turn = result.turn
    titles = dict(
        Document.objects.filter(
            pk__in=[c["document_id"] for c in turn.retrieved_chunks]
        ).values_list("pk", "title")
    )
    docs = list(dict.fromkeys(titles[uuid.UUID(c["document_id"])] for c in turn.retrieved_chunks))
    phases = {k: float(turn.latencies.get(k, 0)) for k in ("embed", "search", "prompt", "llm")}
    phases["persist+rest"] = total - sum(phases.values())
    return {**phases, "total": total, "docs": docs}


class _Embeddings:
    """LangChain's Embeddings interface over Parley's own local provider (the same model and vectors)."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return embed_texts(texts)

    def embed_query(self, text: str) -> list[float]:
        return embed_query(text)


def baseline_build(rows, vectors):  # type: ignore[no-untyped-def]
    from langchain_postgres import PGVector
    from sqlalchemy import create_engine

    connection.ensure_connection()
    # Without Django's adapters (its jsonb loader returns text): a plain psycopg connection, as LangChain expects.
    params = {
        k: v
        for k, v in connection.get_connection_params().items()
        if k not in {"context", "cursor_factory"}
    }
    import psycopg

    engine = create_engine("postgresql+psycopg://", creator=lambda: psycopg.connect(**params))
    store = PGVector(
        embeddings=_Embeddings(), connection=engine, collection_name="bench_turn", use_jsonb=True
    )
    langchain_load(store, rows, vectors)
    return store


def baseline_turn(bot: Bot, store, question: str, server: ScriptedLLMServer) -> dict:  # type: ignore[no-untyped-def]
    server.enqueue(Reply.json(STUB_ANSWER))
    started = time.perf_counter()
    settings = bot_settings_get(bot_id=bot.pk)
    retriever = store.as_retriever(search_kwargs={"k": settings.retrieval.top_k})
    documents = retriever.invoke(question)
    retrieved = time.perf_counter()
    chunks = [
        PromptChunk(id=str(d.id), text=d.page_content, title=d.metadata["doc_id"])
        for d in documents
    ]
    prompt = prompt_build(
        bot=settings, question=question, history=[], chunks=chunks, locale=settings.rules.locale
    )
    prompted = time.perf_counter()
    raw = llm_complete(endpoint=_endpoint(server), messages=prompt.messages).text
    answered = time.perf_counter()
    json.loads(raw)
    done = time.perf_counter()
    docs = list(dict.fromkeys(d.metadata["doc_id"] for d in documents))
    return {
        "retrieve": (retrieved - started) * 1000,
        "prompt": (prompted - retrieved) * 1000,
        "llm": (answered - prompted) * 1000,
        "parse": (done - answered) * 1000,
        "total": (done - started) * 1000,
        "docs": docs,
    }
