"""Real questions as retrieval pairs, for the fusion calibration of the retrieval app. Three kinds, each
becoming (question, the ids of the bot's ready documents that answer it), searched in its bot's scope:
- evaluation cases that name expected sources (documents by title or file name) or an expected snippet;
- curated answers whose answer repeats a sentence of a document (the documents holding it): an answer
  written from nowhere in the documents has nothing for retrieval to find, so it gives no pair;
- answered turns a visitor rated 👍: the question (condensed, when the pipeline made it standalone) and
  the documents of the chunks the answer used.
rag sits below insights and cannot import it: the calibration reads these pairs through the question
source this app registers at start-up (`workspace_evaluation_pairs`, see insights.apps); a workspace
with too few of them gets the calibration's synthetic pairs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from conversations.models import CuratedAnswer, Turn, TurnStatus
from handoff.models import TurnFeedback
from insights.models import EvaluationCase
from rag.models import Chunk, Document
from rag.retrieval.calibration.pairs import SPAN_MIN_WORDS, CalibrationPair


@dataclass(frozen=True)
class RetrievalPair:
    question: str
    document_ids: tuple[str, ...]


def evaluation_retrieval_pairs(*, bot_id: Any) -> list[RetrievalPair]:
    """The bot's cases naming expected sources, as (question, the named documents' ids)."""
    names = _bot_documents(bot_id=bot_id).names
    pairs = []
    for question, sources in (
        EvaluationCase.objects.filter(evaluation_set__bot_id=bot_id)
        .exclude(expected_sources=[])
        .values_list("question", "expected_sources")
    ):
        ids = _named(names, sources)
        if ids:
            pairs.append(RetrievalPair(question=question, document_ids=ids))
    return pairs


def workspace_evaluation_pairs(workspace_id: str) -> list[tuple[CalibrationPair, str]]:
    """The workspace's real questions as calibration pairs, each with its origin in words: its bots'
    evaluation cases, curated answers and 👍-rated answered turns (one pair per bot and question, in
    that order of precedence)."""
    documents_by_bot: dict[Any, _BotDocuments] = {}
    seen: set[tuple[str | None, str]] = set()
    out = []
    for pair, origin in (
        *_evaluation_case_pairs(workspace_id, documents_by_bot),
        *_curated_answer_pairs(workspace_id, documents_by_bot),
        *_rated_turn_pairs(workspace_id, documents_by_bot),
    ):
        key = (pair.bot_id, " ".join(pair.query.casefold().split()))
        if key not in seen:
            seen.add(key)
            out.append((pair, origin))
    return out


def _pair(
    *, question: str, ids: set[str], bot_id: Any, documents: _BotDocuments
) -> CalibrationPair:
    languages = (documents.languages.get(pk, "") for pk in sorted(ids))
    return CalibrationPair(
        query=question,
        chunk_id="",
        language=next((language for language in languages if language), ""),
        document_ids=tuple(sorted(ids)),
        bot_id=str(bot_id),
    )


def _documents_of(documents_by_bot: dict[Any, _BotDocuments], bot_id: Any) -> _BotDocuments:
    if bot_id not in documents_by_bot:
        documents_by_bot[bot_id] = _bot_documents(bot_id=bot_id)
    return documents_by_bot[bot_id]


def _evaluation_case_pairs(
    workspace_id: str, documents_by_bot: dict[Any, _BotDocuments]
) -> list[tuple[CalibrationPair, str]]:
    """Every case of the workspace's bots that names sources or a snippet found in the bot's ready
    documents."""
    cases = (
        EvaluationCase.objects.filter(evaluation_set__bot__workspace_id=workspace_id)
        .exclude(expected_sources=[], expected_snippet="")
        .select_related("evaluation_set__bot")
        .order_by("evaluation_set__bot__name", "evaluation_set__name", "position", "pk")
    )
    # Per bot, its ready documents are read once (names and languages), and each snippet searched once.
    holding: dict[tuple[Any, str], set[str]] = {}
    out = []
    for case in cases:
        bot = case.evaluation_set.bot
        documents = _documents_of(documents_by_bot, bot.pk)
        ids = set(_named(documents.names, case.expected_sources))
        if snippet := case.expected_snippet.strip():
            if (bot.pk, snippet) not in holding:
                holding[bot.pk, snippet] = _holding(bot_id=bot.pk, snippet=snippet)
            ids.update(holding[bot.pk, snippet])
        if not ids:
            continue  # its documents are gone or not ready: nothing to find
        pair = _pair(question=case.question, ids=ids, bot_id=bot.pk, documents=documents)
        out.append((pair, f"evaluation set “{case.evaluation_set.name}” of bot {bot.name}"))
    return out


def _curated_answer_pairs(
    workspace_id: str, documents_by_bot: dict[Any, _BotDocuments]
) -> list[tuple[CalibrationPair, str]]:
    """Each active curated answer with a sentence (of at least SPAN_MIN_WORDS words) that a ready
    document of its bot holds: its question, and those documents."""
    out = []
    for question, answer, bot_id, bot_name in (
        CuratedAnswer.objects.filter(bot__workspace_id=workspace_id, is_active=True)
        .order_by("bot__name", "question", "pk")
        .values_list("question", "answer", "bot_id", "bot__name")
    ):
        ids: set[str] = set()
        for sentence in _sentences(answer):
            ids.update(_holding(bot_id=bot_id, snippet=sentence))
        if ids:
            documents = _documents_of(documents_by_bot, bot_id)
            pair = _pair(question=question, ids=ids, bot_id=bot_id, documents=documents)
            out.append((pair, f"curated answers of bot {bot_name}"))
    return out


def _rated_turn_pairs(
    workspace_id: str, documents_by_bot: dict[Any, _BotDocuments]
) -> list[tuple[CalibrationPair, str]]:
    """Each answered turn rated 👍: its standalone question and the bot's ready documents its answer
    used. Its documents were found by the retrieval of the day, so a question it missed is never here;
    the rating says the found ones answered it."""
    rated = TurnFeedback.objects.filter(
        rating=TurnFeedback.Rating.UP,
        turn__conversation__bot__workspace_id=workspace_id,
        turn__status=TurnStatus.FOUND_IN_CONTEXT,
    ).values_list("turn_id", flat=True)
    out = []
    for turn in (
        Turn.objects.filter(pk__in=rated)
        .select_related("conversation__bot")
        .order_by("created_at", "pk")
        .only(
            "user_text",
            "condensed_question",
            "retrieved_chunks",
            "context_usage",
            "conversation__bot__name",
        )
    ):
        bot = turn.conversation.bot
        documents = _documents_of(documents_by_bot, bot.pk)
        used = {usage.get("chunk") for usage in turn.context_usage if usage.get("used_in_response")}
        ids = {
            str(chunk["document_id"])
            for chunk in turn.retrieved_chunks
            if chunk.get("chunk_id") in used
            and str(chunk.get("document_id")) in documents.languages
        }
        question = (turn.condensed_question or turn.user_text).strip()
        if ids and question:
            pair = _pair(question=question, ids=ids, bot_id=bot.pk, documents=documents)
            out.append((pair, f"answers rated 👍 in conversations with bot {bot.name}"))
    return out


def _sentences(text: str) -> list[str]:
    """The text's sentences long enough to identify a passage (split on sentence ends and lines)."""
    pieces = re.split(r"(?<=[.!?])\s+|\n+", text)
    return [" ".join(piece.split()) for piece in pieces if len(piece.split()) >= SPAN_MIN_WORDS]


@dataclass(frozen=True)
class _BotDocuments:
    names: dict[str, set[str]]  # casefolded title or filename → document ids
    languages: dict[str, str]  # document id → language ("" when unknown)


def _bot_documents(*, bot_id: Any) -> _BotDocuments:
    names: dict[str, set[str]] = {}
    languages: dict[str, str] = {}
    for pk, title, filename, language in Document.objects.filter(
        bots=bot_id, status=Document.Status.READY
    ).values_list("pk", "title", "filename", "language"):
        for name in (title, filename):
            names.setdefault(name.casefold(), set()).add(str(pk))
        languages[str(pk)] = language
    return _BotDocuments(names, languages)


def _named(names: dict[str, set[str]], sources: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted({pk for source in sources for pk in names.get(source.casefold(), ())}))


def _holding(*, bot_id: Any, snippet: str) -> set[str]:
    """The bot's ready documents with a chunk holding the snippet (case-insensitive)."""
    return {
        str(pk)
        for pk in Chunk.objects.filter(
            document__bots=bot_id, document__status=Document.Status.READY, text__icontains=snippet
        )
        .values_list("document_id", flat=True)
        .distinct()
    }
