"""The generator of changed answers, written and committed before the checker it measures.

For each question of xquad-dev (English questions on English paragraphs) and piaf-dev (French), the gold
sentence is the paragraph's sentence holding the gold span. From it:
- a correct LLM-style answer: the gold sentence restated behind a short frame;
- the same answer with exactly one fact changed, for each kind the sentence allows: a number, a date, a
  name, a unit, a negation.

The paragraphs are split by article (bench.answer.sets: even articles tune, odd ones report). Everything
is deterministic: choices are drawn from a `random.Random` seeded by the set, the question and the kind.
The word lists here belong to the generator alone; the checker never reads them.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from bench.answer.scoring import normalised, sentences
from bench.answer.sets import AnswerSet, Half, half_of, spans_set


def _words(text: str) -> list[str]:
    return text.split()


KINDS = ("number", "date", "name", "unit", "negation")

FRAMES = {
    "en": (
        "{s}",
        "According to the documentation, {s}",
        "Here is what the documents say: {s}",
        "{s} I hope this helps.",
    ),
    "fr": (
        "{s}",
        "D'après la documentation : {s}",
        "Voici ce qu'indiquent les documents : {s}",
        "{s} J'espère que cela vous aide.",
    ),
}

MONTHS = {
    "en": _words(
        "January February March April May June July August September October November December"
    ),
    "fr": _words(
        "janvier février mars avril mai juin juillet août septembre octobre novembre décembre"
    ),
}
NUMBER_WORDS = {
    "en": _words(
        "two three four five six seven eight nine ten eleven twelve twenty thirty hundred"
    ),
    "fr": _words("deux trois quatre cinq six sept huit neuf dix onze douze vingt trente cent"),
}
# Units in families: a unit is changed into another of its family.
UNIT_FAMILIES = {
    "en": (
        ("seconds", "minutes", "hours", "days", "weeks", "months", "years", "decades", "centuries"),
        (
            "millimetres",
            "centimetres",
            "metres",
            "meters",
            "kilometres",
            "kilometers",
            "miles",
            "feet",
            "inches",
            "yards",
        ),
        ("grams", "kilograms", "kg", "tons", "tonnes", "pounds"),
        ("thousand", "million", "billion", "trillion"),
        ("dollars", "euros", "pounds sterling", "francs", "yen"),
        ("percent", "per cent", "%"),
        ("square miles", "square kilometres", "square kilometers", "acres", "hectares"),
    ),
    "fr": (
        ("secondes", "minutes", "heures", "jours", "semaines", "mois", "ans", "années", "siècles"),
        ("millimètres", "centimètres", "mètres", "kilomètres", "km", "m", "cm"),
        ("grammes", "kilogrammes", "kg", "tonnes"),
        ("mille", "millions", "milliards"),
        ("euros", "dollars", "francs", "livres", "€", "$"),
        ("%", "pour cent"),
        ("km2", "hectares", "kilomètres carrés"),
    ),
}
# Spellings of one unit: never a change.
SAME_UNIT = (
    {"metres", "meters", "m"},
    {"kilometres", "kilometers", "km", "kilomètres"},
    {"tons", "tonnes"},
    {"ans", "années"},
    {"mètres", "m"},
    {"centimètres", "cm"},
    {"kilogrammes", "kg"},
    {"kilograms", "kg"},
    {"square kilometres", "square kilometers", "km2", "kilomètres carrés"},
    {"percent", "per cent", "%"},
    {"%", "pour cent"},
    {"euros", "€"},
    {"dollars", "$"},
)
# The percent family has one unit: it is swapped with "points" / "fois" rather than within itself.
UNIT_FALLBACK = {
    "en": {"percent": "times", "per cent": "times", "%": " times"},
    "fr": {"%": " fois", "pour cent": "fois"},
}
AUXILIARIES = {
    "en": (
        "is",
        "was",
        "are",
        "were",
        "has",
        "had",
        "can",
        "could",
        "will",
        "would",
        "may",
        "should",
        "must",
    ),
    "fr": (
        "est",
        "sont",
        "était",
        "étaient",
        "a",
        "ont",
        "avait",
        "avaient",
        "fut",
        "furent",
        "peut",
        "peuvent",
    ),
}
NEGATED = {
    "en": re.compile(r"\b(not|n't|never|no)\b", re.IGNORECASE),
    "fr": re.compile(r"\b(ne|n'|pas|jamais|aucun|aucune)\b", re.IGNORECASE),
}

_YEAR = re.compile(r"(?<![\d.,])(1[0-9]{3}|20[0-9]{2})(?![\d.,]?\d)")
_NUMBER = re.compile(r"(?<![\w.,])(\d{1,3}(?:[,\u202f\u00a0 ]\d{3})+|\d+(?:[.,]\d+)?)(?![\w])")
_NAME = re.compile(r"(?<=[\s(«\"'])([A-ZÀ-ÖØ-Þ][a-zà-öø-ÿ]{3,})\b")


@dataclass(frozen=True)
class Change:
    kind: str
    answer: str
    before: str
    after: str


@dataclass(frozen=True)
class AnswerCase:
    set_name: str  # "xquad-dev/en" or "piaf-dev"
    language: str
    half: Half
    question_id: str
    question: str
    doc_id: str
    paragraph: str
    title: str
    sentence: str  # the gold sentence
    correct: str  # the correct answer
    changes: tuple[Change, ...] = field(default=())


def _rng(*parts: str) -> random.Random:
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def gold_sentence(paragraph: str, spans: tuple[str, ...], language: str) -> str | None:
    """The paragraph's first sentence holding a gold span (normalised, as bench.answer scores spans)."""
    for sentence in sentences(paragraph, language):
        held = f" {normalised(sentence)} "
        if any(normalised(span) and f" {normalised(span)} " in held for span in spans):
            return sentence
    return None


def _replace_at(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


def _number_changed(
    sentence: str, language: str, rng: random.Random
) -> tuple[str, str, str] | None:
    found = [m for m in _NUMBER.finditer(sentence) if not _YEAR.fullmatch(m.group(1))]
    if found:
        match = rng.choice(found)
        old = match.group(1)
        digits = re.sub(r"[^\d]", "", old.split(".")[0] if language == "en" else old.split(",")[0])
        value = int(digits) if digits else 0
        new_value = (
            value + rng.choice((1, 2, 3, 5, 7))
            if value < 20
            else int(value * rng.choice((0.5, 1.5, 2, 3)))
        )
        if new_value == value:
            new_value += 1
        new = f"{new_value:,}" if "," in old and language == "en" else str(new_value)
        return _replace_at(sentence, match.start(1), match.end(1), new), old, new
    words = NUMBER_WORDS[language]
    for match in re.finditer(r"\b(" + "|".join(words) + r")\b", sentence, re.IGNORECASE):
        old = match.group(1)
        new = rng.choice([w for w in words if w != old.lower()])
        return _replace_at(sentence, match.start(1), match.end(1), new), old, new
    return None


def _date_changed(sentence: str, language: str, rng: random.Random) -> tuple[str, str, str] | None:
    years = list(_YEAR.finditer(sentence))
    if years:
        match = rng.choice(years)
        old = match.group(1)
        new = str(int(old) + rng.choice((-12, -7, -3, -2, -1, 1, 2, 3, 5, 11)))
        return _replace_at(sentence, match.start(1), match.end(1), new), old, new
    months = MONTHS[language]
    pattern = re.compile(r"\b(" + "|".join(months) + r")\b", re.IGNORECASE)
    month = pattern.search(sentence)
    if month:
        old = month.group(1)
        new = rng.choice([m for m in months if m.lower() != old.lower()])
        if old[0].isupper():
            new = new[0].upper() + new[1:]
        return _replace_at(sentence, month.start(1), month.end(1), new), old, new
    return None


def _name_changed(
    sentence: str, paragraph: str, pool: list[str], rng: random.Random
) -> tuple[str, str, str] | None:
    months = {m.lower() for ms in MONTHS.values() for m in ms}
    found = [m for m in _NAME.finditer(sentence) if m.group(1).lower() not in months]
    if not found or not pool:
        return None
    match = rng.choice(found)
    old = match.group(1)
    for _ in range(20):
        new = rng.choice(pool)
        if new.lower() not in paragraph.lower() and new[:5].lower() != old[:5].lower():
            return _replace_at(sentence, match.start(1), match.end(1), new), old, new
    return None


def _unit_changed(sentence: str, language: str, rng: random.Random) -> tuple[str, str, str] | None:
    options = []
    for family in UNIT_FAMILIES[language]:
        for unit in family:
            counted = r"(?:\d|\b(?:" + "|".join(NUMBER_WORDS[language]) + r"))"
            pattern = re.compile(counted + r"(\s?)(" + re.escape(unit) + r")(?!\w)", re.IGNORECASE)
            for match in pattern.finditer(sentence):
                options.append((match.start(2), match.end(2), unit, family))
    if not options:
        return None
    start, end, unit, family = rng.choice(sorted(set(options), key=lambda o: o[0]))
    same = set().union(*(group for group in SAME_UNIT if unit.lower() in group)) | {unit.lower()}
    others = [u for u in family if u.lower() not in same and not (len(u) <= 2 and len(unit) > 2)]
    new = rng.choice(others) if others else UNIT_FALLBACK[language].get(unit.lower())
    if new is None:
        return None
    return _replace_at(sentence, start, end, new), sentence[start:end], new


def _negation_changed(
    sentence: str, language: str, rng: random.Random
) -> tuple[str, str, str] | None:
    if NEGATED[language].search(sentence):
        return None
    for match in re.finditer(r"\b(" + "|".join(AUXILIARIES[language]) + r")\b", sentence):
        aux = match.group(1)
        if language == "en":
            new = f"{aux} not"
        else:
            elided = aux[0] in "aeéiou"
            new = f"n'{aux} pas" if elided else f"ne {aux} pas"
        return _replace_at(sentence, match.start(1), match.end(1), new), aux, new
    return None


def _names_pool(answer_set: AnswerSet, half: Half) -> list[str]:
    """Proper names from the same half's paragraphs: what a wrong name looks like in that set."""
    names: set[str] = set()
    for document in answer_set.documents:
        article = document.doc_id.split("-")[1]
        if ("tune" if int(article) % 2 == 0 else "report") != half:
            continue
        names.update(m.group(1) for m in _NAME.finditer(document.text))
    return sorted(names)


def changes_of(case: AnswerCase, *, pool: list[str], seed: int) -> tuple[Change, ...]:
    found = []
    frame_rng = _rng(str(seed), case.set_name, case.question_id, "frame")
    frame = frame_rng.choice(FRAMES[case.language])
    for kind in KINDS:
        rng = _rng(str(seed), case.set_name, case.question_id, kind)
        if kind == "number":
            made = _number_changed(case.sentence, case.language, rng)
        elif kind == "date":
            made = _date_changed(case.sentence, case.language, rng)
        elif kind == "name":
            made = _name_changed(case.sentence, case.paragraph, pool, rng)
        elif kind == "unit":
            made = _unit_changed(case.sentence, case.language, rng)
        else:
            made = _negation_changed(case.sentence, case.language, rng)
        if made is None or made[0] == case.sentence:
            continue
        found.append(
            Change(kind=kind, answer=frame.format(s=made[0]), before=made[1], after=made[2])
        )
    return tuple(found)


def cases(
    root: Path, *, half: Half, seed: int = 50, limit: int | None = None
) -> Iterator[AnswerCase]:
    """Every usable question of `half` with its correct answer and its changed ones; one question per
    gold sentence (the same sentence asked twice counts once)."""
    for answer_set, language in (
        (spans_set(root / "xquad-dev", language="en"), "en"),
        (spans_set(root / "piaf-dev"), "fr"),
    ):
        documents = {document.doc_id: document for document in answer_set.documents}
        pool = _names_pool(answer_set, half)
        seen: set[str] = set()
        made = 0
        for question in half_of(answer_set, half):
            doc_id = sorted(question.gold)[0]
            document = documents[doc_id]
            sentence = gold_sentence(document.text, question.answers, language)
            if sentence is None or sentence in seen or len(sentence) < 20:
                continue
            seen.add(sentence)
            frame = _rng(str(seed), answer_set.name, question.question_id, "frame").choice(
                FRAMES[language]
            )
            case = AnswerCase(
                set_name=answer_set.name,
                language=language,
                half=half,
                question_id=question.question_id,
                question=question.text,
                doc_id=doc_id,
                paragraph=document.text,
                title=document.title,
                sentence=sentence,
                correct=frame.format(s=sentence),
            )
            yield AnswerCase(**{**case.__dict__, "changes": changes_of(case, pool=pool, seed=seed)})
            made += 1
            if limit is not None and made >= limit:
                break
