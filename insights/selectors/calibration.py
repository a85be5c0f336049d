"""Evaluation sets as retrieval pairs, for the fusion calibration of the retrieval app: each case
that names expected sources (documents by title or file name) or an expected snippet becomes
(question, the ids of the bot's documents it names or whose chunks hold the snippet).

rag sits below insights and cannot import it: the calibration reads these pairs through the question
source this app registers at start-up (`workspace_evaluation_pairs`, see insights.apps); a workspace
whose bots have no such cases gives no pairs, and the calibration falls back to its synthetic ones.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from insights.models import EvaluationCase
from rag.models import Chunk, Document
from rag.retrieval.calibration.pairs import CalibrationPair


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
    """Every case of the workspace's bots that names sources or a snippet found in the bot's ready
    documents, as a calibration pair searched in its bot's scope, with its origin ("bot · set")."""
    cases = (
        EvaluationCase.objects.filter(evaluation_set__bot__workspace_id=workspace_id)
        .exclude(expected_sources=[], expected_snippet="")
        .select_related("evaluation_set__bot")
        .order_by("evaluation_set__bot__name", "evaluation_set__name", "position", "pk")
    )
    # Per bot, its ready documents are read once (names and languages), and each snippet searched once.
    documents_by_bot: dict[Any, _BotDocuments] = {}
    holding: dict[tuple[Any, str], set[str]] = {}
    out = []
    for case in cases:
        bot = case.evaluation_set.bot
        if bot.pk not in documents_by_bot:
            documents_by_bot[bot.pk] = _bot_documents(bot_id=bot.pk)
        documents = documents_by_bot[bot.pk]
        ids = set(_named(documents.names, case.expected_sources))
        if snippet := case.expected_snippet.strip():
            if (bot.pk, snippet) not in holding:
                holding[bot.pk, snippet] = _holding(bot_id=bot.pk, snippet=snippet)
            ids.update(holding[bot.pk, snippet])
        if not ids:
            continue  # its documents are gone or not ready: nothing to find
        languages = (documents.languages.get(pk, "") for pk in sorted(ids))
        pair = CalibrationPair(
            query=case.question,
            chunk_id="",
            language=next((language for language in languages if language), ""),
            document_ids=tuple(sorted(ids)),
            bot_id=str(bot.pk),
        )
        out.append((pair, f"{bot.name} · {case.evaluation_set.name}"))
    return out


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
