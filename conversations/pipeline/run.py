"""`answer_run`: one question through every stage, as plain data (the turn, rag_search, evaluation runs
and the Try-it console share it): cheap guards, condensing, the bot's curated answers, hybrid retrieval,
the prompt, the LLM with contract enforcement, routing.

A message a guard catches (injection, request for a human) skips condensing and retrieval: no model,
no embedding, no SQL. A question close enough to a curated answer (conversations.pipeline.curated) is
answered with it: no retrieval, no LLM. Every stage's output and duration is kept for the audit and
the console.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from conversations.adapters import bot_rules_from_settings
from conversations.answering import (
    GUARDED_KINDS,
    AnswerRequest,
    GeneratedAnswer,
    answer_generate,
    offline_stream,
)
from conversations.audit import AnswerRecord
from conversations.guards import injection_watched, message_screen
from conversations.pipeline.condense import CondensedQuestion, question_condense
from conversations.pipeline.curated import (
    CuratedMatch,
    curated_answer_match,
    curated_answers_get,
    curated_chunk,
    curated_generated,
)
from conversations.pipeline.events import PartialRelay, PipelineEmitter
from conversations.pipeline.language import turn_locale
from conversations.pipeline.retrieve import chunks_for_question, embedder_for
from conversations.routing import RouteDecision, answer_route
from conversations.types import BotRules
from core.llm.types import LLMEndpoint
from prompts.engine import BotSettings, HistoryTurn, RenderedPrompt, prompt_build
from rag.embeddings import embed_query, embedding_model_default
from rag.guard import Detection
from rag.retrieval import (
    RetrievalResult,
    RetrievalScope,
    RetrievedChunk,
    document_languages_foreign,
)


@dataclass(frozen=True)
class PipelineRun:
    question: str
    condensed: CondensedQuestion
    retrieval: RetrievalResult | None  # None when a guard answered
    chunks: list[RetrievedChunk]
    prompt: RenderedPrompt
    generated: GeneratedAnswer
    rules: BotRules
    route: RouteDecision
    latencies: dict[str, int] = field(default_factory=dict)
    # The curated answer that answered the question instead of retrieval and the LLM.
    curated: CuratedMatch | None = None
    # The detector's verdict when the message fell in the bot's watch band: answered, recorded.
    watched: Detection | None = None


def answer_run(
    *,
    bot: BotSettings,
    question: str,
    history: Sequence[HistoryTurn],
    scope: RetrievalScope,
    endpoint: LLMEndpoint | None,
    emitter: PipelineEmitter | None = None,
    previous_misses: int = 0,
    curated_answers: bool = True,
) -> PipelineRun:
    """`curated_answers` False: retrieval answers even a question a curated answer would (rag_search,
    whose contexts are the documents' chunks, within the caller's document_ids)."""
    started = time.monotonic()
    if emitter is not None:
        emitter.search_preparation_started()
    # The user's language when the bot may answer in it: its texts, and the prompt's {{ locale }}.
    locale = turn_locale(bot=bot, question=question)
    rules = bot_rules_from_settings(bot=bot, locale=locale)
    guard = message_screen(text=question, injection_threshold=bot.injection_threshold)
    guarded = guard is not None and guard.kind in GUARDED_KINDS
    watched = (
        None
        if guarded
        else injection_watched(
            text=question, threshold=bot.injection_threshold, watch=bot.injection_watch
        )
    )
    condensed = CondensedQuestion(question=question)
    retrieval: RetrievalResult | None = None
    chunks: list[RetrievedChunk] = []
    curated: CuratedMatch | None = None
    curated_ms: dict[str, int] = {}
    if not guarded:
        # Documents in other languages than the question: the LLM translates for the full-text side.
        # Offline nothing can translate, so the look-up is skipped.
        foreign = (
            document_languages_foreign(
                scope=scope, question=question, language=bot.rules.locale.split("-")[0]
            )
            if endpoint is not None
            else []
        )
        condensed = question_condense(
            bot=bot,
            question=question,
            history=history,
            endpoint=endpoint,
            document_languages=foreign,
        )
        vector, curated, curated_ms = (
            _curated_lookup(bot=bot, scope=scope, question=condensed.question)
            if curated_answers
            else (None, None, {})
        )
        if curated is not None:
            chunks = [curated_chunk(match=curated)]
        else:
            chunks, retrieval = chunks_for_question(
                bot=bot,
                scope=scope,
                question=condensed.question,
                keywords=(*condensed.keywords, *condensed.translations),
                query_embedding=vector,
            )
    if emitter is not None:
        emitter.retrieval_completed(
            retrieved_count=retrieval.candidates if retrieval else len(chunks)
        )
        if retrieval is not None and retrieval.reranked:
            count = retrieval.candidates
            emitter.reranking_completed(
                initial_count=count, reranked_count=count, kept_count=len(chunks)
            )
        emitter.compiling_results_started()
    prompt_started = time.monotonic()
    prompt = prompt_build(
        bot=bot,
        question=condensed.question,
        history=history,
        chunks=chunks,
        locale=locale,
    )
    prompt_ms = _ms(prompt_started)
    relay = PartialRelay(emitter)
    model_id = retrieval.model_id if retrieval else embedding_model_default()
    request = AnswerRequest(
        question=condensed.question,
        chunks=chunks,
        rules=rules,
        messages=prompt.messages,
        guard=guard,
    )
    if curated is not None:
        generated = curated_generated(
            match=curated, chunk=chunks[0], rules=rules, question=condensed.question
        )
        if emitter is not None:  # relayed in parts, as an offline answer is
            offline_stream(text=generated.outcome.enforced.answer.answer, on_partial=relay)
    else:
        # Without an emitter nobody reads partial answers: no partial JSON parse per streamed delta.
        generated = answer_generate(
            request=request,
            endpoint=endpoint,
            embed=embedder_for(model_id=model_id),
            on_partial=relay if emitter is not None else None,
        )
    answer = generated.outcome.enforced.answer
    route = answer_route(
        status=answer.status,
        answer=answer.answer,
        display_answer=answer.display_answer,
        redirection_intent=answer.redirection_intent,
        confidence=answer.confidence_score,
        rules=rules,
        previous_misses=previous_misses,
    )
    relay.finish(route.text)
    searched = retrieval.latencies if retrieval else {"embed": 0, "search": 0, "rerank": 0}
    latencies = {
        "condense": condensed.ms,
        **searched,
        # The question embedded ahead of retrieval (for the curated answers) counts as its embedding.
        "embed": searched.get("embed", 0) + curated_ms.get("embed", 0),
        **({"curated": curated_ms["match"]} if curated_ms else {}),
        "prompt": prompt_ms,
        "llm": generated.llm_ms,
        "total": _ms(started),
    }
    return PipelineRun(
        question,
        condensed,
        retrieval,
        chunks,
        prompt,
        generated,
        rules,
        route,
        latencies,
        curated,
        watched,
    )


def _curated_lookup(
    *, bot: BotSettings, scope: RetrievalScope, question: str
) -> tuple[list[float] | None, CuratedMatch | None, dict[str, int]]:
    """The question's vector (None when the bot has no curated answer: retrieval embeds it), the
    curated answer it matches, and the milliseconds spent embedding and matching."""
    started = time.monotonic()
    curated = curated_answers_get(bot_id=bot.bot_id, workspace_id=scope.workspace_id)
    if curated is None:
        return None, None, {}
    embedding_started = time.monotonic()
    vector = embed_query(question, model_id=curated.model_id)
    embed_ms = _ms(embedding_started)
    match = curated_answer_match(curated=curated, vector=vector)
    return vector, match, {"embed": embed_ms, "match": _ms(started) - embed_ms}


def answer_record(*, run: PipelineRun) -> AnswerRecord:
    """What a run leaves for the audit, a turn's or a rag_search's."""
    generated = run.generated
    return AnswerRecord(
        outcome=generated.outcome,
        route=run.route,
        chunks=run.chunks,
        condensed=run.condensed.question if run.condensed.method != "none" else "",
        expanded_query=run.retrieval.query_text if run.retrieval else "",
        prompt_version=run.prompt.template,
        prompt_hash=run.prompt.sha256,
        model=generated.model,
        prompt_tokens=generated.prompt_tokens,
        completion_tokens=generated.completion_tokens,
        latencies=run.latencies,
    )


def _ms(started: float) -> int:
    return round((time.monotonic() - started) * 1000)
