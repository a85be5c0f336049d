"""Offline answers over real chunkings: every demo document (at the default chunk size and at a small one whose
overlaps start and end inside sentences) and the covid-faq corpus's questions. No answer starts or ends inside a
sentence of its document, none holds a raw table row, and each is exactly its quoted passages.

The documents are parsed and chunked as ingestion does, then retrieved by exact cosine search over the chunks'
embeddings (computed once per module), so no database is needed.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from django.conf import settings

from conversations.contract.enforce import output_enforce
from conversations.contract.quotes import text_normalize
from conversations.llm.offline import estimate_default, offline_generate
from conversations.types import Answer, AnswerStatus, BotRules
from rag.chunking import chunks_build
from rag.demo_content import DEMO_FILES, demo_pdf_bytes
from rag.parsing import document_parse
from rag.parsing.titles import document_title
from rag.passages.split import passages_split
from rag.passages.tables import tables_render
from rag.retrieval import RetrievedChunk
from textmodels.language import language_detect

Embed = Callable[[Sequence[str]], list[list[float]]]
# Hundreds of answers on a shared 2-core machine: generous, still bounded.
pytestmark = pytest.mark.timeout(900)

DEMO_DIR = Path(settings.BASE_DIR) / "rag" / "demo"
COVID = Path("/work/shared/corpora/covid-faq-en")
TOP_K = 5
# Questions a visitor of the demo asks (the among them), over every demo document.
DEMO_QUESTIONS = (
    "How long does the battery take to charge?",
    "What does the warranty cover?",
    "How much does delivery cost?",
    "How long does delivery take to Germany?",
    "How far can I ride on one charge?",
    "How should I store the battery in winter?",
    "Can I return a bike I no longer want?",
    "When will I be refunded?",
    "What happens if nobody is home for the delivery?",
    "How long is the motor under warranty?",
    "Is the battery covered if it loses capacity?",
    "How much is a replacement battery?",
    "Can I change the frame size after ordering?",
    "What should I do if the bike arrives damaged?",
    "Which charger can I use?",
    "What does the display show?",
    "Can I wash the battery with a pressure washer?",
    "Who repairs my bike under warranty?",
    "How do I start a return?",
    "Are helmets refunded?",
)
# A quote opens a sentence when the document's running text before it ends one (or a field label).
_OPENS_AFTER = re.compile(r"(^|[.!?…:¶]['\"”’»)\]]*\s)$")
_CLOSES = re.compile(r"[.!?…]['\"”’»)\]]*$")
_PIPE_ROW = re.compile(r"\|[^|\n]*\|")


@dataclass
class Corpus:
    chunks: list[RetrievedChunk]
    vectors: np.ndarray
    # Per document id: its whole text as one running string (table rows as phrases), normalised.
    running: dict[str, str]


def _documents_chunked(
    documents: Sequence[tuple[str, str, bytes]], size: int, overlap: int
) -> tuple[list[RetrievedChunk], list[str], dict[str, str]]:
    chunks, embed_texts, running = [], [], {}
    for doc_id, filename, data in documents:
        parsed = document_parse(data=data, filename=filename)
        texts = []
        # Blocks are paragraphs (a heading's end is a sentence's start) except a PDF's lines and a
        # video's cues, which the running text joins as wrapped text.
        joiner = " " if filename.endswith((".pdf", ".vtt")) else " ¶ "
        for block in parsed.blocks:
            texts.append(
                tables_render(f"{block.table_header}\n{block.text}")
                if block.table_header
                else block.text
            )
        running[doc_id] = text_normalize(joiner.join(texts))
        title = document_title(
            heading=parsed.heading, own_title=parsed.own_title, filename=filename
        )
        drafts = chunks_build(blocks=parsed.blocks, title=title, size=size, overlap=overlap)
        for draft in drafts:
            chunks.append(
                RetrievedChunk(
                    id=f"{doc_id}#{draft.ordinal}",
                    text=draft.text,
                    score=0.0,
                    rank=0,
                    document_id=doc_id,
                    starts_clean=True if draft.ordinal == 0 else None,
                    ends_clean=True if draft.ordinal == len(drafts) - 1 else None,
                )
            )
            embed_texts.append(draft.embed_text)
    return chunks, embed_texts, running


def _corpus(
    documents: Sequence[tuple[str, str, bytes]], embed: Embed, size: int, overlap: int
) -> Corpus:
    chunks, texts, running = _documents_chunked(documents, size, overlap)
    # Every passage the answers may compare with a question, in one batch (the cache keeps them).
    embed([p.text for chunk in chunks for p in passages_split(chunk.text) if p.answerable])
    return Corpus(chunks, np.asarray(embed(texts)), running)


def _demo_documents() -> list[tuple[str, str, bytes]]:
    documents = []
    for filename in DEMO_FILES:
        data = demo_pdf_bytes() if filename.endswith(".pdf") else (DEMO_DIR / filename).read_bytes()
        documents.append((filename, filename, data))
    return documents


@pytest.fixture(scope="module")
def cached_embed(embed: Embed) -> Embed:
    """The session's model, remembering each text's vector: questions over one corpus share passages."""
    vectors: dict[str, list[float]] = {}

    def encode(texts: Sequence[str]) -> list[list[float]]:
        missing = list(dict.fromkeys(text for text in texts if text not in vectors))
        if missing:
            vectors.update(zip(missing, embed(missing), strict=True))
        return [vectors[text] for text in texts]

    return encode


@pytest.fixture(scope="module")
def demo_corpora(cached_embed: Embed) -> dict[str, Corpus]:
    embed = cached_embed
    documents = _demo_documents()
    return {
        "default": _corpus(
            documents, embed, settings.PARLEY_CHUNK_TOKENS, settings.PARLEY_CHUNK_OVERLAP_TOKENS
        ),
        "small": _corpus(documents, embed, 40, 20),
    }


@pytest.fixture(scope="module")
def covid(cached_embed: Embed) -> tuple[Corpus, list[str]]:
    embed = cached_embed
    docs = [json.loads(line) for line in (COVID / "corpus.jsonl").read_text().splitlines()]
    documents = [(d["_id"], "faq.txt", d["text"].encode()) for d in docs]
    corpus = _corpus(
        documents, embed, settings.PARLEY_CHUNK_TOKENS, settings.PARLEY_CHUNK_OVERLAP_TOKENS
    )
    questions = [
        json.loads(line)["text"] for line in (COVID / "queries.jsonl").read_text().splitlines()
    ]
    embed(questions)  # one batch: each question's own call is then a cache hit
    return corpus, questions


def _answer(question: str, corpus: Corpus, embed: Embed) -> tuple[Answer, list[RetrievedChunk]]:
    scores = corpus.vectors @ np.asarray(embed([question])[0])
    top = [
        RetrievedChunk(**{**chunk.__dict__, "score": float(scores[i]), "rank": rank + 1})
        for rank, i in enumerate(np.argsort(-scores)[:TOP_K])
        for chunk in [corpus.chunks[i]]
    ]
    # As retrieval hands them over: each chunk's score is the relevance estimate's probability.
    estimates = estimate_default(question, language_detect(question) or "en", top)
    top = [
        dataclasses.replace(chunk, score=estimate.probability)
        for chunk, estimate in zip(top, estimates, strict=True)
    ]
    rules = BotRules(confidence_threshold=0.35)
    raw = offline_generate(question=question, chunks=top, rules=rules, embed=embed)
    enforced = output_enforce(raw=raw, chunks=top, rules=rules, question=question)
    assert enforced.repairs == (), (question, enforced.repairs)
    return enforced.answer, top


def _problems(
    question: str, answer: Answer, chunks: Sequence[RetrievedChunk], corpus: Corpus
) -> list[str]:
    """What is wrong with one answer's form: a quote opening or closing inside a sentence, raw pipes."""
    by_id = {chunk.id: chunk for chunk in chunks}
    problems, quotes = [], []
    for usage in answer.context_usage:
        if not usage.used_in_response:
            continue
        running = corpus.running[by_id[usage.chunk].document_id]
        for sentence in usage.sentences:
            quote = text_normalize(sentence)
            starts = [m.start() for m in re.finditer(re.escape(quote), running)]
            if not starts:
                problems.append(f"{question!r}: not in its document: {sentence!r}")
            elif not any(_OPENS_AFTER.search(running[:start]) for start in starts):
                problems.append(f"{question!r}: starts inside a sentence: {sentence!r}")
            if not (_CLOSES.search(quote) or running.endswith(quote)):
                problems.append(f"{question!r}: ends inside a sentence: {sentence!r}")
            quotes.append(sentence)
    if answer.answer != " ".join(quotes):
        problems.append(f"{question!r}: the answer is not its quotes: {answer.answer!r}")
    if _PIPE_ROW.search(answer.answer):
        problems.append(f"{question!r}: a raw table row: {answer.answer!r}")
    return problems


def _check(questions: Sequence[str], corpus: Corpus, embed: Embed) -> tuple[int, list[str]]:
    answered, problems = 0, []
    for question in questions:
        answer, top = _answer(question, corpus, embed)
        if answer.status is AnswerStatus.FOUND_IN_CONTEXT:
            answered += 1
            problems += _problems(question, answer, top, corpus)
    return answered, problems


@pytest.mark.parametrize("chunking", ["default", "small"])
def test_demo_answers_are_whole_sentences(
    demo_corpora: dict[str, Corpus], cached_embed: Embed, chunking: str
) -> None:
    answered, problems = _check(DEMO_QUESTIONS, demo_corpora[chunking], cached_embed)

    assert problems == []
    assert answered >= len(DEMO_QUESTIONS) * 3 // 4


# The issue's demo questions ("How long does the battery take to charge?", "What does the warranty
# cover?", "How much does delivery cost?", "Do you deliver to Belgium?") are asked through ingestion and
# retrieval, as the product asks them: tests/conversations/test_relevance_turns.py.


def test_covid_faq_answers_are_whole_sentences(
    covid: tuple[Corpus, list[str]], cached_embed: Embed
) -> None:
    corpus, questions = covid

    answered, problems = _check(questions, corpus, cached_embed)

    assert problems == []
    assert answered >= len(questions) // 2
