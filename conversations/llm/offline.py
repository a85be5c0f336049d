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
indique : « … »" (`cross_language_frame`).
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
    injection_explanation,
)
from conversations.guards import GuardKind, GuardMatch, message_screen
from conversations.llm.across import cross_language_frame, embed_across
from conversations.llm.choose import Estimate, passages_choose
from conversations.types import (
    HUMAN_ESCALATION_INTENT,
    SMALL_TALK_TOPIC,
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


_SMALL_TALK_REPLIES = {
    ("en", "greeting"): "Hello! How can I help you today?",
    ("en", "thanks"): "You're welcome! Anything else I can help with?",
    ("en", "farewell"): "Goodbye, and have a nice day!",
    ("en", "how_are_you"): "I'm doing well, thank you. How can I help you?",
    ("fr", "greeting"): "Bonjour ! Comment puis-je vous aider ?",
    ("fr", "thanks"): "Avec plaisir ! Puis-je vous aider pour autre chose ?",
    ("fr", "farewell"): "Au revoir et bonne journée !",
    ("fr", "how_are_you"): "Très bien, merci. Comment puis-je vous aider ?",
    ("de", "greeting"): "Hallo! Wie kann ich Ihnen heute helfen?",
    ("de", "thanks"): "Gern geschehen! Kann ich Ihnen noch bei etwas anderem helfen?",
    ("de", "farewell"): "Auf Wiedersehen und einen schönen Tag!",
    ("de", "how_are_you"): "Danke, gut. Wie kann ich Ihnen helfen?",
    ("es", "greeting"): "¡Hola! ¿En qué puedo ayudarle hoy?",
    ("es", "thanks"): "¡De nada! ¿Puedo ayudarle en algo más?",
    ("es", "farewell"): "¡Adiós y que tenga un buen día!",
    ("es", "how_are_you"): "Muy bien, gracias. ¿En qué puedo ayudarle?",
    ("it", "greeting"): "Buongiorno! Come posso aiutarla oggi?",
    ("it", "thanks"): "Prego! Posso aiutarla in qualcos'altro?",
    ("it", "farewell"): "Arrivederci e buona giornata!",
    ("it", "how_are_you"): "Bene, grazie. Come posso aiutarla?",
    ("pt", "greeting"): "Olá! Como posso ajudar hoje?",
    ("pt", "thanks"): "De nada! Posso ajudar em mais alguma coisa?",
    ("pt", "farewell"): "Até logo e tenha um bom dia!",
    ("pt", "how_are_you"): "Estou bem, obrigado. Como posso ajudar?",
}


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
        return _answer(
            AnswerStatus.OUT_OF_SCOPE,
            rules.out_of_scope_text,
            0.0,
            UNKNOWN_TOPIC,
            understanding,
            _all_unused(chunks, UNUSED_REASON_STATUS),
        )
    ranked = sorted(chunks, key=lambda chunk: (-chunk.score, chunk.rank))
    top_score = _clamp(ranked[0].score) if ranked else 0.0
    if top_score < rules.confidence_threshold:
        return _answer(
            AnswerStatus.NOT_FOUND_IN_CONTEXT,
            rules.no_answer_text,
            top_score,
            topic,
            understanding,
            _all_unused(chunks, UNUSED_REASON_NOT_FOUND),
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
            usage.append(_unused(chunk.id, UNUSED_REASON_LESS_RELEVANT))
    text = " ".join(sentence for chunk in chunks for sentence in quotes.get(chunk.id, []))
    if text:
        text = cross_language_frame(
            text=text, question_language=question_language, passage_language=passage_language
        )
    if not text:
        return _answer(
            AnswerStatus.NOT_FOUND_IN_CONTEXT,
            rules.no_answer_text,
            top_score,
            topic,
            understanding,
            _all_unused(chunks, UNUSED_REASON_NOT_FOUND),
        )
    return _answer(AnswerStatus.FOUND_IN_CONTEXT, text, top_score, topic, understanding, usage)


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


def guarded_answer(
    *, guard: GuardMatch, question: str, chunks: Sequence[RetrievedChunk], rules: BotRules
) -> dict[str, object]:
    """The contract-abiding answer to a message a cheap guard caught (no model needed)."""
    understanding = " ".join(question.split())
    if guard.kind is GuardKind.SMALL_TALK:
        # The turn's language when there are replies in it, else the greeting's own language.
        language = rules.locale.split("-")[0].lower() or guard.language
        reply = _SMALL_TALK_REPLIES.get(
            (language, guard.label),
            _SMALL_TALK_REPLIES.get(
                (guard.language, guard.label), _SMALL_TALK_REPLIES[("en", "greeting")]
            ),
        )
        return _answer(AnswerStatus.SMALL_TALK, reply, 1.0, SMALL_TALK_TOPIC, understanding, [])
    unused = _all_unused(chunks, UNUSED_REASON_STATUS)
    if guard.kind is GuardKind.INJECTION:
        explanation = injection_explanation(
            question=question, detail=f"{guard.label} pattern on {guard.excerpt!r}."
        )
        return _answer(
            AnswerStatus.INJECTION_ATTEMPT,
            rules.refusal_text,
            0.0,
            UNKNOWN_TOPIC,
            explanation,
            unused,
        )
    if rules.declares_intent(HUMAN_ESCALATION_INTENT):
        return _answer(
            AnswerStatus.HUMAN_ESCALATION,
            rules.handoff_text,
            0.0,
            UNKNOWN_TOPIC,
            understanding,
            unused,
            intent=HUMAN_ESCALATION_INTENT,
        )
    return _answer(
        AnswerStatus.HUMAN_ESCALATION,
        rules.handoff_unavailable_text,
        0.0,
        UNKNOWN_TOPIC,
        understanding,
        unused,
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


def _answer(
    status: AnswerStatus,
    text: str,
    confidence: float,
    topic: str,
    understanding: str,
    usage: list[dict[str, object]],
    *,
    intent: str | None = None,
) -> dict[str, object]:
    return {
        "status": status.value,
        "answer": text,
        "display_answer": True,
        "confidence_score": round(confidence, 4),
        "topic": topic,
        "suggested_topics": [],
        "understanding": understanding,
        "redirection_intent": intent,
        "context_usage": usage,
    }


def _unused(chunk_id: str, reason: str) -> dict[str, object]:
    return {"chunk": chunk_id, "sentences": [], "used_in_response": False, "reason": reason}


def _all_unused(chunks: Sequence[RetrievedChunk], reason: str) -> list[dict[str, object]]:
    return [_unused(chunk.id, reason) for chunk in chunks]


def _clamp(score: float) -> float:
    return min(1.0, max(0.0, float(score)))


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0
