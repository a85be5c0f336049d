"""The (query, answering chunk) pairs a workspace's fusion is calibrated on.

`calibration_pairs` is the one seam. Real questions come first: the insights app registers a question
source (`question_source_register`; rag sits below insights and cannot import it) that turns the
workspace's evaluation cases, curated answers and 👍-rated answered turns into pairs whose targets are
documents, searched in their bot's scope. With at least RETRIEVAL_CALIBRATION_MIN_PAIRS of them they
decide; with fewer (or none) the workspace gets synthetic pairs, whose target is a chunk.

A synthetic pair samples a ready chunk (deterministically: the same chunks give the same pairs, so a
rerun is idempotent), splits it into sentences with pysbd and takes a span of one sentence as the query.
That sentence is then withheld from every chunk holding it before they are scored (the inverse cloze
task, `withheld.py`): a query copied from its target shares every word with it, and on such pairs the
full-text side always looked perfect (held-back recall 0.98-1.00 on every shared set), so no measurement
made on them could be trusted. Withheld, the target must be found from its other sentences, as a real
question's answer is found from words around the ones it asks with. With an LLM configured and a
paraphraser registered (`paraphraser_register`, by the prompts app, which owns prompt templates), a
share of the queries is also rewritten as a user's question.
"""

from __future__ import annotations

import hashlib
import logging
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import pysbd  # type: ignore[import-untyped]  # pysbd ships no type information
from django.conf import settings
from django.db import connection

from rag.models import WorkspaceFusion

logger = logging.getLogger(__name__)

# A query is a whole sentence of at least 5 words (shorter ones are headings and fragments that match
# many chunks by chance), or a window of 24 words of a longer one. Whole sentences rather than shorter
# spans: a sentence embedding model reads a fragment poorly (measured on bench/retrieval's FAQ set, the
# vector side found 0.71 of 5-14-word spans' chunks in its top 5, 0.87 of whole sentences').
SPAN_MIN_WORDS = 5
SPAN_MAX_WORDS = 24
_SEGMENTER_LANGUAGES = {
    "am",
    "ar",
    "bg",
    "da",
    "de",
    "el",
    "en",
    "es",
    "fa",
    "fr",
    "hi",
    "hy",
    "it",
    "ja",
    "kk",
    "mr",
    "my",
    "nl",
    "pl",
    "ru",
    "sk",
    "ur",
    "zh",
}


@dataclass(frozen=True)
class CalibrationPair:
    """A query and what should answer it: `chunk_id` (a synthetic pair's chunk) or, when
    `document_ids` is set (an evaluation case), any chunk of those documents, counted by document."""

    query: str
    chunk_id: str  # '' for a pair whose targets are documents
    language: str  # the target's document's language ('' when unknown)
    paraphrased: bool = False
    document_ids: tuple[str, ...] = ()
    bot_id: str | None = None  # searched in this bot's scope (None: every shared document)
    # The sentence the query was cut from, withheld from every chunk holding it before they are
    # scored (`withheld.py`): the inverse cloze task ('' for a real question).
    withheld: str = ""

    @property
    def key(self) -> str:
        """What fixes the pair's half: its chunk, or its bot and question."""
        return self.chunk_id or f"{self.bot_id}\x1f{self.query}"


@dataclass(frozen=True)
class PairOrigin:
    """Where some of the pairs came from, as the admin page lists it."""

    label: str
    count: int


@dataclass(frozen=True)
class PairSet:
    pairs: list[CalibrationPair]
    source: str  # a WorkspaceFusion.Source value
    origins: tuple[PairOrigin, ...] = ()

    @property
    def paraphrased_count(self) -> int:
        return sum(pair.paraphrased for pair in self.pairs)


# (texts, language) -> one question per text, or None when the model's output is unusable.
Paraphraser = Callable[[Sequence[str], str], list[str] | None]
_paraphraser: Paraphraser | None = None
# workspace id -> its real questions' pairs, each with its origin in words (an evaluation set, a bot's
# curated answers, its 👍-rated answers).
QuestionSource = Callable[[str], list[tuple[CalibrationPair, str]]]
_question_source: QuestionSource | None = None


def paraphraser_register(paraphraser: Paraphraser | None) -> None:
    """Set the function that rewrites spans as questions through the LLM (None: raw spans only)."""
    global _paraphraser
    _paraphraser = paraphraser


def question_source_register(source: QuestionSource | None) -> None:
    """Set the function that gives a workspace's real questions as pairs (None: synthetic only)."""
    global _question_source
    _question_source = source


def calibration_pairs(*, workspace_id: str, model_id: str) -> PairSet:
    """The pairs to calibrate a workspace on: its real questions when there are enough of them to
    measure (RETRIEVAL_CALIBRATION_MIN_PAIRS), else synthetic pairs; the origins say which, and how
    many real questions were set aside for being too few."""
    asked = _question_source(workspace_id) if _question_source is not None else []
    if asked and len(asked) >= settings.RETRIEVAL_CALIBRATION_MIN_PAIRS:
        counts: dict[str, int] = {}
        for _, origin in asked:
            counts[origin] = counts.get(origin, 0) + 1
        return PairSet(
            pairs=[pair for pair, _ in asked],
            source=WorkspaceFusion.Source.EVALUATION,
            origins=tuple(PairOrigin(label, count) for label, count in counts.items()),
        )
    synthetic = synthetic_pairs(
        workspace_id=workspace_id,
        model_id=model_id,
        sample_size=settings.RETRIEVAL_CALIBRATION_SAMPLE_SIZE,
        paraphrase_share=settings.RETRIEVAL_CALIBRATION_PARAPHRASE_SHARE,
    )
    if not asked:
        return synthetic
    set_aside = PairOrigin(
        f"real questions set aside (under the {settings.RETRIEVAL_CALIBRATION_MIN_PAIRS}"
        " a calibration needs)",
        len(asked),
    )
    return replace(synthetic, origins=(*synthetic.origins, set_aside))


# The workspace's shared ready chunks of its current model, in an order fixed by their ids: a sample
# is the same on every run until the chunks change. Session documents are left out (they are private
# to one conversation and short-lived).
_SAMPLE_SQL = """
SELECT c.id, c.text, d.language FROM rag_chunk AS c JOIN rag_document AS d ON d.id = c.document_id
WHERE c.workspace_id = %(workspace_id)s AND c.embedding_model = %(model_id)s
  AND d.status = 'ready' AND d.conversation_id IS NULL AND length(c.text) >= 40
ORDER BY md5(c.id::text), c.id
LIMIT %(limit)s
"""


def synthetic_pairs(
    *, workspace_id: str, model_id: str, sample_size: int, paraphrase_share: float
) -> PairSet:
    with connection.cursor() as cursor:
        cursor.execute(
            _SAMPLE_SQL, {"workspace_id": workspace_id, "model_id": model_id, "limit": sample_size}
        )
        sampled = cursor.fetchall()
    pairs = []
    for chunk_id, text, language in sampled:
        span, sentence = sentence_withheld(text=text, language=language or "", seed=str(chunk_id))
        if span:
            pairs.append(
                CalibrationPair(
                    query=span, chunk_id=str(chunk_id), language=language or "", withheld=sentence
                )
            )
    paraphrased = _paraphrased(pairs, share=paraphrase_share)
    paraphrased_count = sum(pair.paraphrased for pair in paraphrased)
    source = (
        WorkspaceFusion.Source.SYNTHETIC_PARAPHRASED
        if paraphrased_count
        else WorkspaceFusion.Source.SYNTHETIC
    )
    origins = [
        PairOrigin(
            f"sentences withheld from {len(sampled)} sampled chunks (inverse cloze)", len(pairs)
        )
    ]
    if paraphrased_count:
        origins.append(PairOrigin("of which paraphrased by the LLM", paraphrased_count))
    return PairSet(pairs=paraphrased, source=source, origins=tuple(origins))


def sentence_span(*, text: str, language: str, seed: str) -> str:
    """A span of one sentence of `text` (chosen by `seed`), or '' when no sentence is long enough."""
    return sentence_withheld(text=text, language=language, seed=seed)[0]


def sentence_withheld(*, text: str, language: str, seed: str) -> tuple[str, str]:
    """(a span of one sentence of `text`, that whole sentence), chosen by `seed`; ('', '') when no
    sentence is long enough, or when withholding it would leave the chunk less than that much text
    to be found by (a one-sentence chunk has nothing else to be found from)."""
    flat = " ".join(text.split())
    segmenter = pysbd.Segmenter(
        language=language if language in _SEGMENTER_LANGUAGES else "en", clean=False
    )
    sentences = [
        " ".join(words)
        for sentence in segmenter.segment(flat)
        if len(words := sentence.split()) >= SPAN_MIN_WORDS and " ".join(words) in flat
    ]
    if not sentences:
        return "", ""
    rng = random.Random(hashlib.sha256(seed.encode()).digest())  # noqa: S311 (sampling, not security)
    sentence = rng.choice(sentences)
    if len(flat.replace(sentence, " ").split()) < SPAN_MIN_WORDS:
        return "", ""
    words = sentence.split()
    length = min(SPAN_MAX_WORDS, len(words))
    start = rng.randint(0, len(words) - length)
    return " ".join(words[start : start + length]), sentence


def _paraphrased(pairs: list[CalibrationPair], *, share: float) -> list[CalibrationPair]:
    """Rewrite about `share` of the pairs (chosen by a hash of their chunk id) through the registered
    paraphraser, in batches by language; a failed batch keeps its raw spans."""
    if _paraphraser is None or share <= 0 or settings.LLM_PROVIDER != "openai":
        return pairs
    chosen = [index for index, pair in enumerate(pairs) if _fraction(pair.chunk_id) < share]
    out = list(pairs)
    by_language: dict[str, list[int]] = {}
    for index in chosen:
        by_language.setdefault(pairs[index].language, []).append(index)
    for language, indexes in by_language.items():
        for start in range(0, len(indexes), 20):
            batch = indexes[start : start + 20]
            questions = _paraphraser([pairs[i].query for i in batch], language)
            if questions is None or len(questions) != len(batch):
                logger.warning("calibration: a paraphrase batch was unusable, raw spans kept")
                continue
            for index, question in zip(batch, questions, strict=True):
                if question.strip():
                    out[index] = replace(out[index], query=question.strip(), paraphrased=True)
    return out


def _fraction(key: str) -> float:
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:4], "big") / 2**32
