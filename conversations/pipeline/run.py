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
from conversations.contract.support.apply import SupportInputs
from conversations.guards import injection_watched, message_screen
from conversations.pipeline.condense import CondensedQuestion, question_condense
from conversations.pipeline.curated import (
    CuratedMatch,
    curated_answer_match,
    curated_answers_get,
    curated_chunk,
    curated_generated,
)
from conversations.pipeline.events import CheckedRelay, PartialRelay, PipelineEmitter
from conversations.pipeline.language import turn_locale
from conversations.pipeline.retrieve import (
    chunks_for_question,
    embedder_for,
    estimator_for,
)
from conversations.pipeline.support import support_passages
from conversations.routing import RouteDecision, answer_route
from conversations.types import BotRules
from core.llm.types import LLMEndpoint
from prompts.engine import BotSettings, HistoryTurn, RenderedPrompt, prompt_build
from rag.embeddings import embed_query, embedding_model_default, multilingual_model_default
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
    languages_ms = 0
    guarded = guard is not None and guard.kind in GUARDED_KINDS
    watched = (
        None
        if guarded
        else injection_watched(
            text=question, threshold=bot.injection_threshold, watch=bot.injection_watch
        )
    )
    screen_ms = _ms(
        started
    )  # the language and the guards (the watch band too), for the Try-it console
    context = _Context(condensed=CondensedQuestion(question=question))
    if not guarded:
        # Documents in other languages than the question: the LLM translates for the full-text side.
        # Offline nothing can translate, so the look-up is skipped.
        languages_started = time.monotonic()
        foreign = (
            document_languages_foreign(
                scope=scope, question=question, language=bot.rules.locale.split("-")[0]
            )
            if endpoint is not None
            else []
        )
        languages_ms = _ms(languages_started)
        condensed = question_condense(
            bot=bot,
            question=question,
            history=history,
            endpoint=endpoint,
            document_languages=foreign,
        )
        context = _context_find(
            bot=bot, scope=scope, condensed=condensed, curated_answers=curated_answers
        )
    if emitter is not None:
        _retrieval_report(emitter=emitter, context=context)
    # With an LLM, the relevance estimate picks the prompt's chunks (those reaching the bot's threshold)
    # and declines before any model call when none does: the offline provider says "not found".
    prompted = context.chunks if context.curated is not None else _relevant(context.chunks, rules)
    declined = endpoint is not None and not guarded and not prompted
    prompt_started = time.monotonic()
    prompt = prompt_build(
        bot=bot,
        question=context.condensed.question,
        history=history,
        chunks=prompted,
        locale=locale,
    )
    prompt_ms = _ms(prompt_started)
    llm = endpoint is not None and not declined
    support = (
        support_inputs(context=context, chunks=prompted, rules=rules)
        if llm and context.curated is None
        else None
    )
    relay = (
        CheckedRelay(emitter, support.sentence_supported)
        if support is not None
        else PartialRelay(emitter)
    )
    generated = _answer_generate(
        context=context,
        request=AnswerRequest(
            question=context.condensed.question,
            chunks=prompted if llm else context.chunks,
            rules=rules,
            messages=prompt.messages,
            guard=guard,
        ),
        endpoint=endpoint if llm else None,
        relay=relay if emitter is not None else None,
        support=support,
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
    return PipelineRun(
        question=question,
        condensed=context.condensed,
        retrieval=context.retrieval,
        chunks=context.chunks,
        prompt=prompt,
        generated=generated,
        rules=rules,
        route=route,
        latencies=_latencies(
            context=context,
            screen_ms=screen_ms,
            languages_ms=languages_ms,
            prompt_ms=prompt_ms,
            llm_ms=generated.llm_ms,
            started=started,
        ),
        curated=context.curated,
        watched=watched,
    )


@dataclass(frozen=True)
class _Context:
    """What the answer is built from: the condensed question, and the chunks found for it (by
    retrieval, or the one curated answer that matched). A guarded message has none."""

    condensed: CondensedQuestion
    retrieval: RetrievalResult | None = None
    chunks: list[RetrievedChunk] = field(default_factory=list)
    curated: CuratedMatch | None = None
    curated_ms: dict[str, int] = field(default_factory=dict)


def _context_find(
    *, bot: BotSettings, scope: RetrievalScope, condensed: CondensedQuestion, curated_answers: bool
) -> _Context:
    """The chunks the answer is built from: the curated answer the question matches, else what
    retrieval finds (with the question's vector when the curated look-up embedded it)."""
    vector, curated, curated_ms = (
        _curated_lookup(bot=bot, scope=scope, question=condensed.question)
        if curated_answers
        else (None, None, {})
    )
    if curated is not None:
        return _Context(
            condensed=condensed,
            chunks=[curated_chunk(match=curated)],
            curated=curated,
            curated_ms=curated_ms,
        )
    chunks, retrieval = chunks_for_question(
        bot=bot,
        scope=scope,
        question=condensed.question,
        keywords=(*condensed.keywords, *condensed.translations),
        query_embedding=vector,
    )
    return _Context(condensed=condensed, retrieval=retrieval, chunks=chunks, curated_ms=curated_ms)


def _retrieval_report(*, emitter: PipelineEmitter, context: _Context) -> None:
    """The stream's retrieval, reranking and compiling phases, once the chunks are known."""
    retrieval = context.retrieval
    emitter.retrieval_completed(
        retrieved_count=retrieval.candidates if retrieval else len(context.chunks)
    )
    if retrieval is not None and retrieval.reranked:
        count = retrieval.candidates
        emitter.reranking_completed(
            initial_count=count, reranked_count=count, kept_count=len(context.chunks)
        )
    emitter.compiling_results_started()


def support_inputs(
    *, context: _Context, chunks: Sequence[RetrievedChunk], rules: BotRules
) -> SupportInputs:
    """What the LLM's answer is checked against: the chunks given to it, with the units and vectors
    retrieval read of them (made at ingestion)."""
    retrieval = context.retrieval
    return support_passages(
        chunks=chunks,
        known=retrieval.relevance_inputs if retrieval else {},
        model_id=(retrieval.multi_model_id or retrieval.model_id) if retrieval else "",
        language=(rules.locale or "en").split("-")[0],
    )


def _relevant(chunks: Sequence[RetrievedChunk], rules: BotRules) -> list[RetrievedChunk]:
    """The chunks whose relevance (rag.relevance's probability) reaches the bot's threshold."""
    return [chunk for chunk in chunks if chunk.score >= rules.confidence_threshold]


def _answer_generate(
    *,
    context: _Context,
    request: AnswerRequest,
    endpoint: LLMEndpoint | None,
    relay: PartialRelay | None,
    support: SupportInputs | None = None,
) -> GeneratedAnswer:
    """The curated answer as the bot's (relayed in parts, as an offline answer is), or the LLM's
    answer with its contract enforced. `relay` None: nobody reads partial answers (no emitter), so
    no partial JSON is parsed per streamed delta."""
    if context.curated is not None:
        generated = curated_generated(
            match=context.curated,
            chunk=context.chunks[0],
            rules=request.rules,
            question=request.question,
        )
        if relay is not None:
            offline_stream(text=generated.outcome.enforced.answer.answer, on_partial=relay)
        return generated
    retrieval = context.retrieval
    model_id = retrieval.model_id if retrieval else embedding_model_default()
    multi_model_id = retrieval.multi_model_id if retrieval else multilingual_model_default()
    return answer_generate(
        request=request,
        endpoint=endpoint,
        embed=embedder_for(model_id=model_id),
        on_partial=relay,
        estimate=estimator_for(
            model_id=model_id,
            multi_model_id=multi_model_id,
            known=retrieval.relevance_inputs if retrieval else None,
        ),
        support=support,
    )


def _latencies(
    *,
    context: _Context,
    screen_ms: int,
    languages_ms: int,
    prompt_ms: int,
    llm_ms: int,
    started: float,
) -> dict[str, int]:
    """Each stage's milliseconds, for the audit and the console."""
    retrieval = context.retrieval
    searched = retrieval.latencies if retrieval else {"embed": 0, "search": 0, "rerank": 0}
    curated_ms = context.curated_ms
    return {
        "screen": screen_ms,
        "languages": languages_ms,
        "condense": context.condensed.ms,
        **searched,
        # The question embedded ahead of retrieval (for the curated answers) counts as its embedding.
        "embed": searched.get("embed", 0) + curated_ms.get("embed", 0),
        **({"curated": curated_ms["match"]} if curated_ms else {}),
        "prompt": prompt_ms,
        "llm": llm_ms,
        "total": _ms(started),
    }


def _curated_lookup(
    *, bot: BotSettings, scope: RetrievalScope, question: str
) -> tuple[list[float] | None, CuratedMatch | None, dict[str, int]]:
    """The question's vector (None when the bot has no curated answer: retrieval embeds it), the
    curated answer it matches, and the milliseconds spent embedding and matching (the look-up alone
    when there is nothing to match: it is a step of the turn all the same)."""
    started = time.monotonic()
    curated = curated_answers_get(bot_id=bot.bot_id, workspace_id=scope.workspace_id)
    if curated is None:
        return None, None, {"match": _ms(started)}
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
