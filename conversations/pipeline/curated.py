"""Curated answers in the turn's path: the bot's active curated answer closest to the (condensed)
question, when its cosine similarity reaches the bot's threshold, answers the turn instead of
retrieval and the LLM.

The question is embedded once, with the workspace's model; that vector is the one retrieval then
searches with when no curated answer matches, so a turn never embeds its question twice. A bot
without active curated answers pays one indexed query and no embedding. A matched answer is a
`found_in_context` answer citing the curated answer as its one source (a chunk whose id is
`curated:<id>`), enforced by the contract like any answer, and audited with the model `curated`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from conversations.answering import GeneratedAnswer
from conversations.contract.attempts import answer_obtain
from conversations.curated_embeddings import curated_answers_reembed_queue
from conversations.models import CuratedAnswer, CuratedAnswerPolicy
from conversations.types import UNKNOWN_TOPIC, AnswerStatus, BotRules
from rag.retrieval import RetrievedChunk
from rag.selectors import workspace_embedding_model

# The audit marker of a curated answer: the turn's `model` (as "guard" marks a guard's answer) and
# the generator of its one attempt.
CURATED_MODEL = "curated"
CURATED_CHUNK_PREFIX = "curated:"
CURATED_TITLE_PREFIX = "Curated answer: "
TITLE_CHARS = 200


@dataclass(frozen=True)
class CuratedCandidate:
    curated_id: str
    question: str
    answer: str
    embedding: tuple[float, ...]


@dataclass(frozen=True)
class CuratedAnswers:
    """A bot's active curated answers embedded with one model, and its threshold."""

    model_id: str
    threshold: float
    candidates: tuple[CuratedCandidate, ...]


@dataclass(frozen=True)
class CuratedMatch:
    curated_id: str
    question: str
    answer: str
    similarity: float


def curated_answers_get(*, bot_id: str, workspace_id: str) -> CuratedAnswers | None:
    """The bot's active curated answers embedded with the workspace's model, or None when it has
    none (the turn then embeds nothing ahead of retrieval)."""
    if not bot_id:
        return None  # a workspace's own search (rag_search without a bot) has no curated answers
    rows = list(
        CuratedAnswer.objects.filter(bot_id=bot_id, is_active=True)
        .exclude(embedding=[])
        .values_list("pk", "question", "answer", "embedding", "embedding_model")
    )
    if not rows:
        return None
    model_id = workspace_embedding_model(workspace_id=workspace_id)
    candidates = tuple(
        CuratedCandidate(str(pk), question, answer, tuple(embedding))
        for pk, question, answer, embedding, model in rows
        if model == model_id
    )
    if len(candidates) < len(rows):
        # Left in the workspace's previous model: re-embedded in the background, skipped till then.
        curated_answers_reembed_queue(bot_id=bot_id)
    if not candidates:
        return None
    threshold = (
        CuratedAnswerPolicy.objects.filter(bot_id=bot_id)
        .values_list("similarity_threshold", flat=True)
        .first()
    )
    return CuratedAnswers(model_id, threshold or CuratedAnswerPolicy.DEFAULT_SIMILARITY, candidates)


def curated_answer_match(
    *, curated: CuratedAnswers, vector: Sequence[float]
) -> CuratedMatch | None:
    """The candidate most similar to the question's vector, when at least as similar as the
    threshold; None otherwise. Stored embeddings are normalised; the query is normalised here."""
    query = np.asarray(vector, dtype=np.float64)
    query /= float(np.linalg.norm(query)) or 1.0
    matrix = np.asarray([c.embedding for c in curated.candidates], dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[1] != query.shape[0]:
        return None  # embedded with another model's dimensions: not comparable
    similarities = matrix @ query
    best = int(np.argmax(similarities))
    similarity = float(similarities[best])
    if similarity < curated.threshold:
        return None
    chosen = curated.candidates[best]
    return CuratedMatch(
        chosen.curated_id, chosen.question, chosen.answer, round(min(similarity, 1.0), 4)
    )


def curated_chunk(*, match: CuratedMatch) -> RetrievedChunk:
    """The curated answer as the turn's one source: what its citation and audit show."""
    return RetrievedChunk(
        id=CURATED_CHUNK_PREFIX + match.curated_id,
        text=match.answer,
        score=max(0.0, match.similarity),
        rank=1,
        title=(CURATED_TITLE_PREFIX + match.question)[:TITLE_CHARS],
        source=CURATED_MODEL,
        vector_score=match.similarity,
    )


def curated_generated(
    *, match: CuratedMatch, chunk: RetrievedChunk, rules: BotRules, question: str
) -> GeneratedAnswer:
    """The curated answer through the answer contract (one attempt, no model call)."""
    started = time.monotonic()
    output = {
        "status": AnswerStatus.FOUND_IN_CONTEXT.value,
        "answer": match.answer,
        "display_answer": True,
        # How sure the bot is that this is the question the admin answered.
        "confidence_score": max(0.0, match.similarity),
        "topic": UNKNOWN_TOPIC,
        "suggested_topics": [],
        "understanding": f"Answered with the curated answer to “{match.question}”.",
        "redirection_intent": None,
        "context_usage": [{"chunk": chunk.id, "sentences": [], "used_in_response": True}],
    }
    raw = json.dumps(output, ensure_ascii=False)
    outcome = answer_obtain(
        generate=lambda _feedback: raw,
        chunks=[chunk],
        rules=rules,
        question=question,
        max_attempts=1,
    )
    return GeneratedAnswer(
        outcome=outcome, model=CURATED_MODEL, llm_ms=round((time.monotonic() - started) * 1000)
    )
