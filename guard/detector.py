"""The prompt-injection detector: text → (score, label, excerpt, language), for chat messages before any
model sees them and for document chunks at ingestion (indirect injection).

The score in [0, 1] is the noisy-or of two parts: multilingual patterns over the folded text (and over
any base64 payload it hides), and a small classifier over the MiniLM embedding and character n-grams.
Callers compare it with a threshold: the bot's for messages, DEFAULT_THRESHOLD for chunks.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from guard.classifier import classifier_model
from guard.normalise import base64_payloads, spelled_out, text_fold
from guard.patterns import PatternHit, patterns_match, patterns_score
from guard.shapes import HALF
from guard.stacking import Stack, stack_load

DEFAULT_THRESHOLD = 0.6
# The lower edge of the watch band: a message scoring between this and the bot's threshold is answered
# under the prompt's untrusted-data framing and recorded as a security event (bots.Bot.injection_watch).
# Training maps the cut it picks on wildguard's tuning prompts onto this value (guard.stacking).
DEFAULT_WATCH = 0.3
# A chunk scoring between this and the threshold is kept but its instruction-like sentences are watched
# at answer time (conversations.contract.planted).
BORDERLINE = 0.3
LABEL_CLASSIFIER = "classifier"
# A document chunk's sentence asking the assistant for a task unrelated to the chunk (guard.tasks).
LABEL_TASK = "task_injection"
# A task finding is the chunk's score when it is the stronger one: at or above the threshold it
# quarantines, between BORDERLINE and the threshold it is recorded on the chunk (score, label,
# sentence) for the document admin and the chunk stays in retrieval, its instruction-like sentences
# watched at answer time. The cut is trained so that none of the ordinary documents it was tuned on is
# quarantined (guard.task_training, docs/decisions/guard-documents.md).
# On a document chunk the classifier counts only beside a cue this strong: fainter ones ("act as a",
# "role play", "verbatim") are words of ordinary prose, where the classifier already reads high.
DOCUMENT_CUE = HALF
PATTERN_LABEL_WEIGHT = 0.4
# The classifier alone reaches at most this score: learnt from few attack styles, it is never as sure as
# a strong pattern, so with the default threshold it flags alone only above 0.8 (or with a weak cue).
CLASSIFIER_WEIGHT = 0.75
EXCERPT_LIMIT = 300
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")


@dataclass(frozen=True)
class Detection:
    score: float
    # The strongest cue ("override", "prompt_extraction", "role_play", "fake_system", "policy_disabled",
    # "format_hijack", "encoded_payload", "context_override", "classifier"), "" when nothing looked
    # like an injection.
    label: str
    # The sentence that carried the cue, as written (or the start of the text for the classifier).
    excerpt: str
    # ISO 639-1 of the cue's pattern (or a guess from the text), "" when unknown or nothing was found.
    language: str

    def flagged(self, threshold: float = DEFAULT_THRESHOLD) -> bool:
        return self.score >= threshold

    def watched(
        self, *, threshold: float = DEFAULT_THRESHOLD, watch: float = DEFAULT_WATCH
    ) -> bool:
        """In the middle band: answered, but recorded as a security event."""
        return watch <= self.score < threshold


NOTHING = Detection(0.0, "", "", "")


def injection_detect(*, text: str, embedding: Sequence[float] | None = None) -> Detection:
    """Score one text; without `embedding` the local MiniLM one is computed (and cached for retrieval)."""
    if embedding is None:
        return _detect_cached(text)
    return injection_detect_batch(texts=[text], embeddings=[embedding])[0]


def injection_detect_batch(
    *,
    texts: Sequence[str],
    embeddings: Sequence[Sequence[float] | None] | None = None,
    documents: bool = False,
    sources: Sequence[int] | None = None,
) -> list[Detection]:
    """Score many texts at once (ingestion): one hashing pass and one matrix product for the batch.
    Missing embeddings (None, or a chunk embedded by another model) are computed with MiniLM.

    `documents`: the texts are document chunks, unlike the messages the classifier learnt from (it
    scores plain prose as high as 0.7): there it only strengthens a cue of DOCUMENT_CUE weight or
    more, never flags alone. `sources` numbers each chunk's document (a document's chunks consecutive
    and in order), so that the task scorer can read a short chunk with its neighbours.
    """
    if not texts:
        return []
    given: list[Sequence[float] | None] = (
        list(embeddings) if embeddings is not None else [None] * len(texts)
    )
    folded = [text_fold(text) for text in texts]
    matched = [patterns_match(fold) for fold in folded]
    # On documents the classifier counts only beside a cue: the other chunks skip it (ingestion's CPU).
    scored = [
        index
        for index, hits in enumerate(matched)
        if not documents or _document_cue(hits) or base64_payloads(texts[index])
    ]
    probabilities = [0.0] * len(texts)
    if scored:
        subset = _probabilities(
            [texts[i] for i in scored], [folded[i] for i in scored], [given[i] for i in scored]
        )
        for index, probability in zip(scored, subset, strict=True):
            probabilities[index] = probability
    detections = [
        _detection(text, fold, hits, probability, documents=documents)
        for text, fold, hits, probability in zip(texts, folded, matched, probabilities, strict=True)
    ]
    return (
        _with_tasks(texts, detections, sources) if documents else _with_payloads(texts, detections)
    )


def _with_payloads(texts: Sequence[str], detections: list[Detection]) -> list[Detection]:
    """A message hiding base64 scores at least what its decoded payload scores as a message: the
    wrapper's own words (an order reference, a greeting) must not dilute what the model would read."""
    payloads = {i: base64_payloads(text) for i, text in enumerate(texts)}
    wrapped = [(i, payload) for i, found in payloads.items() for payload in found]
    if not wrapped:
        return detections
    decoded = injection_detect_batch(texts=[payload for _, payload in wrapped])
    result = list(detections)
    for (index, _), inner in zip(wrapped, decoded, strict=True):
        if inner.score > result[index].score:
            excerpt = texts[index].strip()[:EXCERPT_LIMIT]
            result[index] = Detection(inner.score, "encoded_payload", excerpt, inner.language)
    return result


def _with_tasks(
    texts: Sequence[str], detections: list[Detection], sources: Sequence[int] | None
) -> list[Detection]:
    """A document chunk's score is also its strongest task aimed at the assistant (guard.tasks)."""
    from guard.tasks import tasks_find
    from textmodels.embeddings import LOCAL_MODEL_ID, embed_texts

    def embed(batch: list[str]) -> list[list[float]]:
        return embed_texts(batch, model_id=LOCAL_MODEL_ID) if batch else []

    findings = tasks_find(texts=texts, embed=embed, sources=sources)
    return [
        Detection(round(finding.score, 4), LABEL_TASK, finding.excerpt[:EXCERPT_LIMIT], "en")
        if finding.score >= BORDERLINE and finding.score > detection.score
        else detection
        for detection, finding in zip(detections, findings, strict=True)
    ]


def instruction_like(text: str) -> bool:
    """Whether a sentence reads as an instruction to the model (patterns only: no embedding, so cheap
    enough for every sentence); the answer check uses it on retrieved chunks' sentences."""
    return patterns_score(patterns_match(text_fold(text))) >= BORDERLINE


def detection_cache_clear() -> None:
    """Forget the scores of recent messages (benchmarks measuring a cold detection)."""
    _detect_cached.cache_clear()


@functools.lru_cache(maxsize=512)
def _detect_cached(text: str) -> Detection:
    # A turn screens its question more than once (pipeline, answer, offline provider): score it once.
    return injection_detect_batch(texts=[text])[0]


def _probabilities(
    texts: Sequence[str], folded: list[str], given: list[Sequence[float] | None]
) -> list[float]:
    model = classifier_model()
    if model is None:
        return [0.0] * len(texts)
    from textmodels.embeddings import LOCAL_MODEL_ID, embed_query, embed_texts

    missing = [index for index, vector in enumerate(given) if vector is None]
    if len(missing) == 1:
        given[missing[0]] = embed_query(texts[missing[0]], model_id=LOCAL_MODEL_ID)
    elif missing:
        computed = embed_texts([texts[index] for index in missing], model_id=LOCAL_MODEL_ID)
        for index, vector in zip(missing, computed, strict=True):
            given[index] = vector
    matrix = np.asarray(given, dtype=np.float32)
    return model.probabilities(folded=folded, embeddings=matrix)


def scores_combine(*, pattern_score: float, probability: float) -> float:
    """The detector's score: the noisy-or of the patterns' score and the weighted probability."""
    return 1.0 - (1.0 - pattern_score) * (1.0 - CLASSIFIER_WEIGHT * probability)


def injection_cues(text: str) -> list[PatternHit]:
    """The cues of a message (every one re-read, as for a suspicious text): what training combines
    with out-of-fold classifier probabilities."""
    folded = text_fold(text)
    return _cues(text, folded, patterns_match(folded), reread=True, documents=False)


def injection_cues_score(text: str) -> float:
    """The patterns' part of the score alone."""
    return patterns_score(injection_cues(text))


def _cues(
    text: str, folded: str, matched: list[PatternHit], *, reread: bool, documents: bool
) -> list[PatternHit]:
    """The folded text's pattern hits plus those of what folding cannot undo in one pass: a leet 1
    read as an l, letters spelt out one by one, base64 payloads."""
    hits = list(matched)
    # "ru1es": the leet 1 was an l. Only re-read when something already looks off: ordinary text full
    # of digits (a chunk of figures) would otherwise be matched twice.
    if reread and "1" in text and (alternative := text_fold(text, one="l")) != folded:
        hits += patterns_match(alternative)
    # A document's table or alphabet may spell letters out; a message doing so is dodging a filter.
    if not documents and spelled_out(text):
        hits.append(PatternHit(label="encoded_payload", language="", weight=HALF, start=-1, end=-1))
    for payload in base64_payloads(text):
        decoded_hits = patterns_match(text_fold(payload))
        if decoded_hits:
            weight = max(0.8, patterns_score(decoded_hits))
            hits.append(
                PatternHit(
                    label="encoded_payload",
                    language=decoded_hits[0].language,
                    weight=weight,
                    start=-1,
                    end=-1,
                )
            )
            # What the payload says counts as if written plainly (the learnt cue weights read it).
            hits += [
                PatternHit(label=h.label, language=h.language, weight=h.weight, start=-1, end=-1)
                for h in decoded_hits
            ]
    return hits


def _detection(
    text: str, folded: str, matched: list[PatternHit], probability: float, *, documents: bool
) -> Detection:
    suspicious = bool(matched) or probability >= BORDERLINE
    hits = _cues(text, folded, matched, reread=suspicious, documents=documents)
    pattern_score = patterns_score(hits)
    if documents and not _document_cue(hits):
        probability = 0.0
    stack = _stack()
    if stack is None:
        score = scores_combine(pattern_score=pattern_score, probability=probability)
    elif documents:
        # A chunk's strong cue stays as strong as its hand weight: prose was never in the stack's data.
        score = max(
            pattern_score, stack.score(probability=probability, hits=hits) if probability else 0.0
        )
    else:
        score = stack.score(probability=probability, hits=hits)
    if score < BORDERLINE and not hits:
        return Detection(round(score, 4), "", "", "")
    top = max(hits, key=lambda hit: hit.weight) if hits else None
    # A pattern names the attack better than the classifier does, unless it was only a faint cue.
    if top is None or (top.weight < PATTERN_LABEL_WEIGHT and top.weight < probability):
        label, excerpt, language = LABEL_CLASSIFIER, text.strip()[:EXCERPT_LIMIT], ""
    else:
        label, excerpt, language = top.label, _excerpt(text, folded, top), top.language
    if not language and score >= BORDERLINE:
        from textmodels.language import language_detect

        language = language_detect(text)
    return Detection(round(score, 4), label, excerpt, language)


def _stack() -> Stack | None:
    model = classifier_model()
    return stack_load(model.meta) if model is not None else None


def _excerpt(text: str, folded: str, hit: PatternHit) -> str:
    """The original sentence holding the hit (matching was on the folded text, which maps back by sentence)."""
    if hit.start < 0:
        return text.strip()[:EXCERPT_LIMIT]
    matched = folded[hit.start : hit.end].strip()
    sentence: str
    for sentence in _SENTENCE.findall(text):
        if matched and matched[:40] in text_fold(sentence):
            return sentence.strip()[:EXCERPT_LIMIT]
    return matched[:EXCERPT_LIMIT]


def _document_cue(hits: list[PatternHit]) -> bool:
    return any(hit.weight >= DOCUMENT_CUE for hit in hits)
