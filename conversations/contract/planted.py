"""The answer check against indirect injection: documents are untrusted data, so an answer must not pass
on an instruction planted in a retrieved chunk, nor a contact (URL, phone number, e-mail address) that no
retrieved chunk holds. Offending sentences are dropped from the answer and from the quotes, and recorded.

Instruction-like sentences are found with the injection detector's patterns (guard), sentence by
sentence: a chunk the detector quarantined never reaches here, a borderline or released one may.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from conversations.contract.schema import Draft
from conversations.types import AnswerStatus, BotRules
from guard.detector import instruction_like
from guard.normalise import text_fold
from rag.retrieval import RetrievedChunk

# A sentence ends at . ! or ? before a space (not inside a URL or an address), or at a line break.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_URL = re.compile(r"\b(?:https?://|www\.)[^\s<>\"')\]]+", re.IGNORECASE)
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_PHONE = re.compile(r"(?<![\w])\+?\d[\d\s().-]{6,}\d(?![\w])")
_WORD = re.compile(r"\w{3,}")
# An answer sentence sharing this much of its words with a planted instruction repeats it.
OVERLAP_REPEATS = 0.6
MIN_PHONE_DIGITS = 8
CHECKED_STATUSES = frozenset({AnswerStatus.FOUND_IN_CONTEXT, AnswerStatus.NOT_FOUND_IN_CONTEXT})


def contacts_in(text: str) -> set[str]:
    """URLs, e-mail addresses and phone numbers in `text`, normalised (lower case; a phone's digits)."""
    found = {url.rstrip(".,;:!?").lower() for url in _URL.findall(text)}
    found |= {email.lower() for email in _EMAIL.findall(text)}
    for phone in _PHONE.findall(text):
        digits = re.sub(r"\D", "", phone)
        if len(digits) >= MIN_PHONE_DIGITS:
            found.add(digits)
    return found


# Sized for the chunks a busy process keeps retrieving (a chunk's text is ~1-2 kB).
CHUNK_CACHE_SIZE = 2048


@functools.lru_cache(maxsize=CHUNK_CACHE_SIZE)
def _planted_in(text: str) -> tuple[str, ...]:
    """A chunk's instruction-like sentences. Kept per chunk text: the same chunks are retrieved again
    and again, and the detector's patterns over every sentence of every chunk were the largest step of
    the answer check (bench.turn.profile, docs/decisions/passages-at-ingestion.md)."""
    return tuple(s for s in _sentences(text) if instruction_like(s))


@functools.lru_cache(maxsize=CHUNK_CACHE_SIZE)
def _contacts_held(text: str) -> frozenset[str]:
    return frozenset(contacts_in(text))


def planted_content_drop(draft: Draft, chunks: Sequence[RetrievedChunk], rules: BotRules) -> None:
    """Drop the answer's sentences that repeat a planted instruction or bring a contact from nowhere."""
    if draft.status not in CHECKED_STATUSES:
        return
    planted = [s for chunk in chunks for s in _planted_in(chunk.text)]
    planted_contacts = set().union(*(contacts_in(sentence) for sentence in planted))
    sourced = set().union(*(_contacts_held(chunk.text) for chunk in chunks))

    def offending(sentence: str) -> str:
        contacts = contacts_in(sentence)
        if contacts & planted_contacts:
            return "names a contact from an instruction planted in a document"
        if contacts - sourced:
            return "names a URL, phone number or e-mail address found in no retrieved chunk"
        if any(_repeats(sentence, instruction) for instruction in planted):
            return "repeats an instruction planted in a document"
        if planted and instruction_like(sentence):
            return "gives an instruction while a retrieved chunk holds planted ones"
        return ""

    kept = []
    for sentence in _sentences(draft.answer):
        if why := offending(sentence):
            draft.repair(
                "planted_sentence_dropped", f"Dropped {sentence.strip()!r}: it {why}.", "answer"
            )
        else:
            kept.append(sentence.strip())
    if len(kept) != len(_sentences(draft.answer)):
        draft.answer = " ".join(kept)
    for usage in draft.context_usage:
        quoted = [s for s in usage.sentences if not offending(s)]
        if len(quoted) != len(usage.sentences):
            draft.repair(
                "planted_quote_dropped",
                f"Chunk {usage.chunk}: a quoted sentence carried a planted instruction or contact.",
                "context_usage",
            )
            usage.sentences = quoted
    if not draft.answer.strip():
        draft.status = AnswerStatus.NOT_FOUND_IN_CONTEXT
        draft.answer = rules.no_answer_text
        draft.confidence_score = 0.0
        draft.repair(
            "planted_answer_replaced",
            "Nothing was left of the answer once planted content was dropped; the no-answer text shows.",
            "answer",
        )


def _sentences(text: str) -> list[str]:
    return [sentence for sentence in _SENTENCE_END.split(text) if sentence.strip()]


def _repeats(sentence: str, instruction: str) -> bool:
    words = set(_WORD.findall(text_fold(sentence)))
    if len(words) < 3:
        return False
    return len(words & set(_WORD.findall(text_fold(instruction)))) >= OVERLAP_REPEATS * len(words)
