"""The public sets `bench.answer` asks, read from the shared corpora: documents, questions with their gold
spans (none for the FAQ sets), and each question's half.

A set is split by article (piaf-dev's `piaf-NNN-PP`, xquad-dev's `xq-NN-PP`: even articles are the tune
half, odd ones the report half); a set without articles (covid-faq-en, spf-fr) by its question's ordinal.
Everything is chosen on the tune half; the report half is run once, at the end.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Half = Literal["tune", "report"]


@dataclass(frozen=True)
class Document:
    doc_id: str
    title: str
    text: str


@dataclass(frozen=True)
class Question:
    question_id: str
    text: str
    language: str
    answers: tuple[str, ...]  # gold spans; () for a set without spans
    half: Half
    gold: frozenset[str]  # the relevant documents' ids


@dataclass(frozen=True)
class AnswerSet:
    name: str  # e.g. "xquad-dev/de"
    language: str  # the documents' language
    documents: tuple[Document, ...]
    questions: tuple[Question, ...]


def _jsonl(path: Path) -> list[dict]:  # type: ignore[type-arg]
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _qrels(folder: Path) -> dict[str, set[str]]:
    relevant: dict[str, set[str]] = {}
    for line in (folder / "qrels.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        query_id, doc_id, score = line.split("\t")
        if float(score) > 0:
            relevant.setdefault(query_id, set()).add(doc_id)
    return relevant


def _article_half(doc_id: str) -> Half:
    """piaf-NNN-PP / xq-NN-PP: the article number's parity."""
    article = doc_id.split("-")[1]
    return "tune" if int(article) % 2 == 0 else "report"


def _documents(folder: Path) -> tuple[Document, ...]:
    return tuple(
        Document(doc_id=row["_id"], title=row.get("title") or "", text=row["text"])
        for row in _jsonl(folder / "corpus.jsonl")
    )


def spans_set(folder: Path, *, language: str | None = None) -> AnswerSet:
    """piaf-dev (French questions, `metadata.answers`) or xquad-dev in one question language
    (`metadata.language`, the English spans `metadata.answers_en`)."""
    documents = _documents(folder)
    known = {document.doc_id for document in documents}
    relevant = _qrels(folder)
    questions = []
    for row in _jsonl(folder / "queries.jsonl"):
        metadata = row.get("metadata") or {}
        asked = metadata.get("language", "")
        if language is not None and asked != language:
            continue
        gold = relevant.get(row["_id"], set()) & known
        answers = metadata.get("answers") or metadata.get("answers_en") or []
        if not gold or not answers:
            continue
        questions.append(
            Question(
                question_id=row["_id"],
                text=row["text"],
                language=asked,
                answers=tuple(dict.fromkeys(answers)),
                half=_article_half(sorted(gold)[0]),
                gold=frozenset(gold),
            )
        )
    name = folder.name if language is None else f"{folder.name}/{language}"
    document_language = "fr" if folder.name.startswith("piaf") else "en"
    return AnswerSet(name, document_language, documents, tuple(questions))


def faq_set(folder: Path, *, language: str) -> AnswerSet:
    """A set without spans (covid-faq-en, spf-fr): its questions count for refusals only."""
    documents = _documents(folder)
    known = {document.doc_id for document in documents}
    relevant = _qrels(folder)
    questions = []
    for ordinal, row in enumerate(_jsonl(folder / "queries.jsonl")):
        gold = relevant.get(row["_id"], set()) & known
        if not gold:
            continue
        half: Half = "tune" if ordinal % 2 == 0 else "report"
        questions.append(
            Question(
                question_id=row["_id"],
                text=row["text"],
                language=language,
                answers=(),
                half=half,
                gold=frozenset(gold),
            )
        )
    return AnswerSet(folder.name, language, documents, tuple(questions))


def sets_load(root: Path) -> dict[str, AnswerSet]:
    """Every set the bench asks, by name."""
    return {
        "piaf-dev": spans_set(root / "piaf-dev"),
        "xquad-dev/en": spans_set(root / "xquad-dev", language="en"),
        "xquad-dev/de": spans_set(root / "xquad-dev", language="de"),
        "xquad-dev/es": spans_set(root / "xquad-dev", language="es"),
        "covid-faq-en": faq_set(root / "covid-faq-en", language="en"),
        "spf-fr": faq_set(root / "spf-fr", language="fr"),
    }


def half_of(answer_set: AnswerSet, half: Half) -> list[Question]:
    return [question for question in answer_set.questions if question.half == half]
