"""The support check on plain data: an answer's sentences against the passages given to the model.

Per sentence:
1. its facts (`support.facts`) must each be found in a passage, literally or normalised;
2. a sentence stating facts must also be supported as a whole: its best passage unit reaches the
   calibrated support (the multilingual cosine between the sentence and a unit, the vectors made at
   ingestion, or the unit's share of the sentence's content words in the same language, whichever is
   higher; `rag.relevance.lexical`), and says it with the same polarity (a negation the unit lacks, or
   the reverse, is not support).

A sentence with no facts passes untouched. The check never raises: a failure of a parser keeps the
sentence (a missed check is recorded, never a failed turn).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from conversations.contract.support.calibration import calibration_load
from conversations.contract.support.facts import Fact, facts_of, passage_keys
from conversations.contract.support.numbers import fold
from conversations.contract.support.units import Embed as Embed
from conversations.contract.support.units import SupportPassage as SupportPassage
from conversations.contract.support.units import Unit, sentences_units_ranked

# An answer longer than this is checked on its first part only (a bound on the work, any input).
MAX_CHECKED_CHARS = 12000
MAX_SENTENCES = 60

# A sentence ends at . ! or ? before a space, or at a line break (never inside a number or a URL).
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)|\n+")


def _words(text: str) -> list[str]:
    return text.split()


# Negations in the six languages (whole folded words; "n'" as the elided French particle).
_NEGATIONS = frozenset(
    _words(
        "not no never n't none nobody nothing neither nor cannot ne n' pas jamais aucun aucune "
        "rien personne ni nicht kein keine keinen keinem keiner keines nie niemals nichts nunca "
        "ningun ninguna ningunos nada nadie tampoco non mai nessun nessuno nessuna niente nulla "
        "nao nenhum nenhuma nada ninguem "
    )
)
_TOKEN = re.compile(r"n't|n'|[^\W\d_]+")


@dataclass(frozen=True)
class Verdict:
    sentence: str
    supported: bool
    kind: str = (
        ""  # the kind of the fact not found, "negation" or "claim" (the sentence as a whole)
    )
    fact: str = ""  # the fact as written
    reason: str = ""
    support: float | None = None  # the sentence's best support, when measured


def sentences_split(text: str) -> list[str]:
    return [part.strip() for part in _SENTENCE_END.split(text) if part.strip()]


@functools.lru_cache(maxsize=2048)
def _keys(text: str, language: str) -> frozenset[str]:
    return passage_keys(text, language)


@functools.lru_cache(maxsize=2048)
def _spaced(text: str) -> str:
    """Folded, quotation marks out, spaces collapsed: a quote compared with its passage."""
    return " ".join(fold(text).translate(_QUOTE_MARKS).split())


_QUOTE_MARKS = str.maketrans(dict.fromkeys('«»“”„"', " "))


def _quoted(sentence: str, passages: Sequence[SupportPassage]) -> bool:
    """Whether the sentence is a passage's own words (a quote, or a piece of one): supported as it is."""
    spoken = _spaced(sentence)
    return len(spoken) >= MIN_QUOTED and any(spoken in _spaced(p.text) for p in passages)


MIN_QUOTED = 20


def _negated(text: str) -> bool:
    return any(token in _NEGATIONS for token in _TOKEN.findall(fold(text)))


def _fact_missing(facts: Sequence[Fact], held: frozenset[str]) -> Fact | None:
    for fact in facts:
        if not fact.keys & held:
            return fact
    return None


_REASONS = {
    "number": "states the number {fact!r}, found in no passage given to the model",
    "amount": "states the amount {fact!r}, found in no passage given to the model",
    "percentage": "states the percentage {fact!r}, found in no passage given to the model",
    "quantity": "states the quantity {fact!r} (a number and its unit), found in no passage",
    "date": "states the date {fact!r}, found in no passage given to the model",
    "email": "names the e-mail address {fact!r}, found in no passage given to the model",
    "phone": "names the phone number {fact!r}, found in no passage given to the model",
    "url": "names the link {fact!r}, found in no passage given to the model",
    "name": "names {fact!r}, found in no passage given to the model",
}


def answer_check(
    *,
    answer: str,
    language: str,
    passages: Sequence[SupportPassage],
    embed: Embed | None = None,
) -> list[Verdict]:
    """One verdict per sentence of `answer`, in order. `embed`: the sentences' vectors with the model
    of the passages' vectors (None: whole-sentence support is lexical alone)."""
    text = answer[:MAX_CHECKED_CHARS]
    sentences = sentences_split(text)
    if not sentences:
        return []
    held: frozenset[str] = frozenset().union(*(_keys(p.text, p.language) for p in passages))
    verdicts: list[Verdict | None] = []
    with_facts: list[int] = []
    for index, sentence in enumerate(sentences):
        if index >= MAX_SENTENCES:
            verdicts.append(
                Verdict(sentence=sentence, supported=True, reason="not checked (answer too long)")
            )
            continue
        facts = facts_of(sentence, language)
        if facts and _quoted(sentence, passages):
            verdicts.append(Verdict(sentence=sentence, supported=True, support=1.0))
            continue
        if not facts:
            verdicts.append(Verdict(sentence=sentence, supported=True))
            continue
        missing = _fact_missing(facts, held)
        if missing is not None:
            reason = _REASONS[missing.kind].format(fact=missing.text)
            verdicts.append(
                Verdict(
                    sentence=sentence,
                    supported=False,
                    kind=missing.kind,
                    fact=missing.text,
                    reason=reason,
                )
            )
            continue
        verdicts.append(None)
        with_facts.append(index)
    if with_facts:
        checked = [sentences[index] for index in with_facts]
        facts_by = {index: facts_of(sentences[index], language) for index in with_facts}
        ranked = sentences_units_ranked(checked, language, passages, embed)
        for index, units in zip(with_facts, ranked, strict=True):
            verdicts[index] = _whole_verdict(sentences[index], facts_by[index], units)
    return [verdict for verdict in verdicts if verdict is not None]


# The units a sentence is read against once it is supported: its best few (an answer may join two
# sentences of a passage into one), whose facts must hold the sentence's.
UNITS_HOLDING_FACTS = 1
UNITS_POLARITY = 1
# The second-best unit holds facts too when its support is at least this share of the best's (chosen on
# the tune half of bench/faithfulness).
UNITS_JOINED = 2
NEAR_BEST = 0.6


def _whole_verdict(sentence: str, facts: Sequence[Fact], units: Sequence[Unit]) -> Verdict:
    minimum = calibration_load().support_min
    best = units[0].score if units else 0.0
    if best < minimum:
        return Verdict(
            sentence=sentence,
            supported=False,
            kind="claim",
            fact="",
            reason=f"is not supported as a whole by any passage (support {best:.2f} < {minimum:.2f})",
            support=best,
        )
    # The best units, and every unit the sentence repeats whole (a sentence joining two units).
    spoken = _spaced(sentence)
    repeated = [u for u in units if _spaced(u.text) in spoken]
    near = [
        *units[:UNITS_HOLDING_FACTS],
        # An answer may join two sentences of its passages: a unit nearly as close as the best counts too.
        *(u for u in units[UNITS_HOLDING_FACTS:UNITS_JOINED] if u.score >= NEAR_BEST * best),
        *repeated,
    ]
    held: frozenset[str] = frozenset().union(*(_keys(u.text, u.language) for u in near))
    missing = _fact_missing(facts, held)
    if missing is not None:
        why = _REASONS[missing.kind].format(fact=missing.text).split(", found in")[0]
        return Verdict(
            sentence=sentence,
            supported=False,
            kind=missing.kind,
            fact=missing.text,
            reason=f"{why}, found in the passages but not where they say what the sentence says",
            support=best,
        )
    said = " ".join(u.text for u in [*units[:UNITS_POLARITY], *repeated])
    for fact in facts:
        # A number the sentence states bare, which its passage states only with a unit ("12 times"
        # where the passage says "12%"): the unit was changed or lost.
        bare = {"bare:" + key.split(":", 1)[1] for key in fact.keys}
        if fact.kind == "number" and not bare & held:
            return Verdict(
                sentence=sentence,
                supported=False,
                kind="unit",
                fact=fact.text,
                reason=f"states {fact.text!r} without the unit its passage gives it",
                support=best,
            )
    # A negation the passage lacks; the reverse is not read: a paraphrase often leaves out a clause
    # that holds one ("store it at room temperature when you do not ride").
    if _negated(sentence) and not _negated(said):
        return Verdict(
            sentence=sentence,
            supported=False,
            kind="negation",
            fact="",
            reason="says the opposite of its passage (a negation the passage lacks)",
            support=best,
        )
    return Verdict(sentence=sentence, supported=True, support=best)
