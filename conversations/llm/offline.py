"""The offline provider: a deterministic answerer honouring the same contract as the LLM.

It is the embedded default when no LLM is configured and the fallback when the remote LLM
is down. It classifies with the cheap guards and by embedding similarity to the covered and
excluded topics. It answers only when the best chunk's relevance (`rag.relevance`'s probability that
it is about what the question asks, one scale for every model and language) reaches the bot's
threshold, and then with whole passages of the chunks that reach it (sentences and table rows, made at
ingestion, rag.passages; llm.choose): the best units by the relevance estimate, at most the bot's N, in
their order in the chunks, each quoted in context_usage exactly as the answer shows it. Its output passes
the contract's enforcement without a repair.

A question in another language than the passages (a French question on English documents): the passages
are quoted in their own language and framed in the question's: "La documentation (en anglais)
indique : « … »" (`cross_language_frame`). The answers that need no model are `replies`'.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum

from conversations.contract.enforce import (
    UNUSED_REASON_NOT_FOUND,
    UNUSED_REASON_STATUS,
)
from conversations.guards import GuardMatch, message_screen
from conversations.llm.across import cross_language_frame, embed_across
from conversations.llm.choose import Estimate, passages_choose
from conversations.llm.replies import answer_shaped, chunk_unused, chunks_unused, guarded_answer
from conversations.types import (
    UNKNOWN_TOPIC,
    AnswerStatus,
    BotRules,
)
from rag.relevance.estimate import ChunkEstimate
from rag.relevance.service import retrieved_estimate
from rag.retrieval import RetrievedChunk
from textmodels.embeddings import LOCAL_MODEL_ID, MULTI_MODEL_ID
from textmodels.embeddings.multilingual import monolingual_scale
from textmodels.language import language_detect

OFFLINE_MODEL = "offline"
UNUSED_REASON_LESS_RELEVANT = "Less relevant than the chunks used."

# embed(texts) -> one vector per text; the team's embedding provider fits this signature.
Embed = Callable[[Sequence[str]], Sequence[Sequence[float]]]


@dataclass(frozen=True)
class OfflineTuning:
    # Cosine similarity a covered topic needs to name the question's topic.
    topic_similarity: float = 0.35
    # An excluded topic must be this similar, and beat the best covered topic by the margin.
    excluded_similarity: float = 0.25
    excluded_margin: float = 0.1
    # Chunks (in retrieval order, each reaching the threshold) whose units may be quoted.
    max_chunks_used: int = 4


def offline_fallback_model(model: str) -> str:
    """How a turn's model reads when the offline provider answered for a failed remote model."""
    return f"offline-fallback({model})"


class Unscreened(Enum):
    """The default of `guard`: nobody screened the message yet."""

    TOKEN = 0


UNSCREENED = Unscreened.TOKEN


def offline_generate(
    *,
    question: str,
    chunks: Sequence[RetrievedChunk],
    rules: BotRules,
    embed: Embed,
    tuning: OfflineTuning | None = None,
    guard: GuardMatch | Unscreened | None = UNSCREENED,
    estimate: Estimate | None = None,
) -> str:
    """The raw output, as an LLM would return it: one JSON object."""
    answer = offline_answer(
        question=question,
        chunks=chunks,
        rules=rules,
        embed=embed,
        tuning=tuning,
        guard=guard,
        estimate=estimate,
    )
    return json.dumps(answer, ensure_ascii=False)


def offline_answer(
    *,
    question: str,
    chunks: Sequence[RetrievedChunk],
    rules: BotRules,
    embed: Embed,
    tuning: OfflineTuning | None = None,
    guard: GuardMatch | Unscreened | None = UNSCREENED,
    across: Embed | None = None,
    estimate: Estimate | None = None,
) -> dict[str, object]:
    """`guard`: the pipeline's screen of the visitor's message (a turn screens it once, in
    `answer_run`); the provider screens `question` itself only when called on its own. `across`: the
    multilingual embedding for a question in another language than the chunks (`embed_across`), for
    the topics. `estimate`: the relevance estimate of the chunks' units (`rag.relevance`; the pipeline
    passes the workspace's models), by default with the embedded models."""
    tuning = tuning or OfflineTuning()
    question_language, passage_language = _languages(question, chunks, rules)
    scale = _same_scale
    if question_language and passage_language and question_language != passage_language:
        embed, scale = across or embed_across, monolingual_scale
    understanding = " ".join(question.split())
    if isinstance(guard, Unscreened):
        guard = message_screen(text=question, injection_threshold=rules.injection_threshold)
    if guard is not None:
        return guarded_answer(guard=guard, question=question, chunks=chunks, rules=rules)
    topic, out_of_scope = _scope(question, rules, embed, tuning, scale)
    if out_of_scope:
        return answer_shaped(
            AnswerStatus.OUT_OF_SCOPE,
            rules.out_of_scope_text,
            0.0,
            UNKNOWN_TOPIC,
            understanding,
            chunks_unused(chunks, UNUSED_REASON_STATUS),
        )
    ranked = sorted(chunks, key=lambda chunk: (-chunk.score, chunk.rank))
    top_score = _clamp(ranked[0].score) if ranked else 0.0
    if top_score < rules.confidence_threshold:
        return answer_shaped(
            AnswerStatus.NOT_FOUND_IN_CONTEXT,
            rules.no_answer_text,
            top_score,
            topic,
            understanding,
            chunks_unused(chunks, UNUSED_REASON_NOT_FOUND),
        )
    # The most relevant first: the estimate reads the question's words and meaning together, where
    # retrieval's fused rank weighs sides measured on other questions.
    supporting = [chunk for chunk in ranked if chunk.score >= rules.confidence_threshold][
        : tuning.max_chunks_used
    ]
    quotes = passages_choose(
        question=question,
        question_language=question_language,
        chunks=supporting,
        estimate=estimate or estimate_default,
        limit=rules.max_answer_sentences,
    ).quotes
    usage = []
    for chunk in chunks:
        if quotes.get(chunk.id):
            usage.append(
                {
                    "chunk": chunk.id,
                    "sentences": quotes[chunk.id],
                    "used_in_response": True,
                    "reason": None,
                }
            )
        else:
            usage.append(chunk_unused(chunk.id, UNUSED_REASON_LESS_RELEVANT))
    text = " ".join(sentence for chunk in chunks for sentence in quotes.get(chunk.id, []))
    if text:
        text = cross_language_frame(
            text=text, question_language=question_language, passage_language=passage_language
        )
    if not text:
        return answer_shaped(
            AnswerStatus.NOT_FOUND_IN_CONTEXT,
            rules.no_answer_text,
            top_score,
            topic,
            understanding,
            chunks_unused(chunks, UNUSED_REASON_NOT_FOUND),
        )
    return answer_shaped(
        AnswerStatus.FOUND_IN_CONTEXT, text, top_score, topic, understanding, usage
    )


def estimate_default(
    question: str, language: str, chunks: Sequence[RetrievedChunk]
) -> list[ChunkEstimate]:
    """The relevance estimate with the embedded models (a caller that knows the workspace's passes its
    own, conversations.pipeline.retrieve.estimator_for)."""
    return retrieved_estimate(
        question=question,
        question_language=language,
        chunks=chunks,
        model_id=LOCAL_MODEL_ID,
        multi_model_id=MULTI_MODEL_ID,
    )


def _languages(question: str, chunks: Sequence[RetrievedChunk], rules: BotRules) -> tuple[str, str]:
    """(the question's language, the best chunks' language): detected, the question's else the bot's
    locale; the chunks' by their joined text, '' when unknown."""
    question_language = language_detect(question) or rules.locale.split("-")[0].lower()
    ranked = sorted(chunks, key=lambda chunk: (-chunk.score, chunk.rank))[:3]
    passage_language = language_detect(" ".join(chunk.text for chunk in ranked)) if ranked else ""
    return question_language, passage_language


def _same_scale(similarity: float) -> float:
    return similarity


def _scope(
    question: str,
    rules: BotRules,
    embed: Embed,
    tuning: OfflineTuning,
    scale: Callable[[float], float] = _same_scale,
) -> tuple[str, bool]:
    """The closest covered topic (or "unknown"), and whether an excluded topic is clearly closer."""
    covered, excluded = list(rules.covered_topics), list(rules.excluded_topics)
    if not covered and not excluded:
        return UNKNOWN_TOPIC, False
    vectors = embed([question, *covered, *excluded])
    question_vector = vectors[0]
    covered_scores = [scale(_cosine(question_vector, v)) for v in vectors[1 : 1 + len(covered)]]
    excluded_scores = [scale(_cosine(question_vector, v)) for v in vectors[1 + len(covered) :]]
    best_covered = max(covered_scores, default=0.0)
    best_excluded = max(excluded_scores, default=0.0)
    out_of_scope = (
        best_excluded >= tuning.excluded_similarity
        and best_excluded > best_covered + tuning.excluded_margin
    )
    if covered and best_covered >= tuning.topic_similarity and not out_of_scope:
        return covered[covered_scores.index(best_covered)], False
    return UNKNOWN_TOPIC, out_of_scope


def _clamp(score: float) -> float:
    return min(1.0, max(0.0, float(score)))


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0
