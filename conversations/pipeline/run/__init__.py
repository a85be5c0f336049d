"""`answer_run`: one question through every stage, as plain data (the turn, rag_search, evaluation runs
and the Try-it console share it): cheap guards, condensing, the bot's curated answers, hybrid retrieval,
the prompt, the LLM with contract enforcement, routing.

A message a guard catches (injection, request for a human) skips condensing and retrieval: no model,
no embedding, no SQL. A question close enough to a curated answer (conversations.pipeline.curated) is
answered with it: no retrieval, no LLM. Every stage's output and duration is kept for the audit and
the console.
"""

from __future__ import annotations

from collections.abc import Sequence

from conversations.adapters import bot_rules_from_settings
from conversations.answering import GUARDED_KINDS, AnswerRequest
from conversations.guards import message_screen
from conversations.pipeline.condense import CondensedQuestion, question_condense
from conversations.pipeline.events import CheckedRelay, PartialRelay, PipelineEmitter
from conversations.pipeline.language import turn_locale
from conversations.pipeline.run.context import TurnContext, context_find, relevant, retrieval_report
from conversations.pipeline.run.generate import answer_generate_for, support_inputs
from conversations.pipeline.run.record import answer_record, stage_latencies
from conversations.pipeline.run.result import PipelineRun
from conversations.pipeline.run.timing import StageTimer
from conversations.routing import enforced_answer_route
from core.llm.types import LLMEndpoint
from guard.screen import message_watched
from prompts.engine import BotSettings, HistoryTurn, prompt_build
from rag.retrieval import RetrievalScope, document_languages_foreign

__all__ = ["PipelineRun", "answer_record", "answer_run", "support_inputs"]


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
    timer = StageTimer()
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
        else message_watched(
            text=question, threshold=bot.injection_threshold, watch=bot.injection_watch
        )
    )
    timer.mark("screen")  # the language and the guards (the watch band too), for the Try-it console
    context = TurnContext(condensed=CondensedQuestion(question=question))
    if not guarded:
        # Documents in other languages than the question: the LLM translates for the full-text side.
        # Offline nothing can translate, so the look-up is skipped.
        with timer.stage("languages"):
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
        context = context_find(
            bot=bot, scope=scope, condensed=condensed, curated_answers=curated_answers
        )
    if emitter is not None:
        retrieval_report(emitter=emitter, context=context)
    # With an LLM, the relevance estimate picks the prompt's chunks (those reaching the bot's threshold)
    # and declines before any model call when none does: the offline provider says "not found".
    prompted = context.chunks if context.curated is not None else relevant(context.chunks, rules)
    declined = endpoint is not None and not guarded and not prompted
    with timer.stage("prompt"):
        prompt = prompt_build(
            bot=bot,
            question=context.condensed.question,
            history=history,
            chunks=prompted,
            locale=locale,
        )
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
    generated = answer_generate_for(
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
    route = enforced_answer_route(answer=answer, rules=rules, previous_misses=previous_misses)
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
        latencies=stage_latencies(
            context=context, stages=timer.ms, llm_ms=generated.llm_ms, total=timer.total()
        ),
        curated=context.curated,
        watched=watched,
    )
