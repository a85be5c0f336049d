"""The facts a sentence states, each with the keys that find it again in a passage.

A fact's keys are normalised forms: a quantity's value in its dimension's base unit ("duration:1209600.0"
for "14 days", "fourteen days" and "2 weeks"), an amount's currency and value, a date's day and month, a
phone number in E.164 (`phonenumbers`, read in the regions of the text's language), an e-mail address,
a URL without its scheme, a name's first letters. A passage's keys are gathered the same way; a fact is
found when one of its keys is among the passage's.

Kinds: number, amount, percentage, quantity (a number with a unit: durations, lengths...), date, email,
phone, url, name.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import phonenumbers
from babel.dates import get_month_names

from conversations.contract.support.numbers import (
    LANGUAGES,
    NUMBER,
    candidate_values,
    digits_of_words,
    fold,
    fold_aligned,
    unit_after,
    unit_before,
    value_key,
)

_CITATION = re.compile(r"\[\d{1,3}\]")
_URL = re.compile(r"\b(?:https?://|www\.)[^\s<>\"')\]]+", re.IGNORECASE)
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_PHONE_LIKE = re.compile(r"\+?\d[\d\s().\-/]{6,}\d")
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_NUMERIC_DATE = re.compile(r"\b(\d{1,2})[./](\d{1,2})[./](\d{2}|\d{4})\b")
# A name: a capitalised word, an acronym or a word mixing letters and digits (a product's model).
_NAME = re.compile(r"\b(?:[A-ZÀ-ÖØ-Þ][\w'’-]*[\w]|[A-Za-z]+\d[\w-]*)")
_SENTENCE_OPENING = re.compile(r"(?:^|[.!?:;»«\"“”(\n]\s*|\s[-–—]\s)$")
# Regions whose numbering plan a phone number in a text of that language is read in.
_REGIONS = {
    "en": ("US", "GB", "IE", "CA", "AU"),
    "fr": ("FR", "BE", "CH", "CA"),
    "de": ("DE", "AT", "CH"),
    "es": ("ES", "MX", "AR"),
    "it": ("IT", "CH"),
    "pt": ("PT", "BR"),
}
MIN_PHONE_DIGITS = 8
NAME_PREFIX = 5


@dataclass(frozen=True)
class Fact:
    kind: str
    text: str  # as written in the sentence
    keys: frozenset[str]


@functools.cache
def _months() -> dict[str, tuple[int, bool]]:
    """Every month's folded name and abbreviation in the six languages (CLDR through babel): its
    number, and whether it may stand alone (a full name of four letters or more: "May", "mar" or
    "set" are other words too, and count only beside a day or a year)."""
    months: dict[str, tuple[int, bool]] = {}
    for language in LANGUAGES:
        for width in ("wide", "abbreviated"):
            for context in ("format", "stand-alone"):
                names = get_month_names(width, context, locale=language)
                for number, name in names.items():
                    folded = fold(name).rstrip(".")
                    alone = width == "wide" and len(folded) >= 4
                    if len(folded) >= 3 and (alone or folded not in months):
                        months[folded] = (int(number), alone)
    return months


@functools.cache
def _month_pattern() -> re.Pattern[str]:
    names = "|".join(re.escape(name) for name in sorted(_months(), key=len, reverse=True))
    # "12 March", "12. März", "12 de marzo", "1er mars", "March 12"
    return re.compile(
        rf"(?:(\d{{1,2}})(?:er|º|°|\.)?\s+(?:de\s+)?)?\b({names})\.?(?![^\W\d_])"
        rf"(?:\s+(\d{{1,2}})(?!\d))?(?:,?\s+(?:de\s+)?(\d{{4}})(?!\d))?"
    )


def _spans_free(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with the spans already read blanked (kept at the same length, so offsets hold)."""
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def _phones(text: str, language: str) -> list[tuple[int, int, frozenset[str]]]:
    if not _PHONE_LIKE.search(text):
        return []
    found: dict[tuple[int, int], set[str]] = {}
    regions = _REGIONS.get(language, ()) or tuple(r for rs in _REGIONS.values() for r in rs)
    for region in regions:
        try:
            for match in phonenumbers.PhoneNumberMatcher(text, region):
                number = phonenumbers.format_number(
                    match.number, phonenumbers.PhoneNumberFormat.E164
                )
                found.setdefault((match.start, match.end), set()).add(number)
        except Exception:  # noqa: S112 - a parser failure must never fail a turn
            continue
    # A run of digits phonenumbers does not read as a number of these regions is kept by its digits.
    for run in _PHONE_LIKE.finditer(text):
        digits = re.sub(r"\D", "", run.group())
        overlaps = any(s < run.end() and run.start() < e for s, e in found)
        if (
            len(digits) >= MIN_PHONE_DIGITS
            and not overlaps
            and not _NUMERIC_DATE.search(run.group())
            and not _ISO_DATE.search(run.group())
        ):
            found[(run.start(), run.end())] = {digits}
    return [(start, end, frozenset(keys)) for (start, end), keys in found.items()]


def _dates(text: str) -> list[tuple[int, int, frozenset[str], list[float]]]:
    """Dates: (start, end, keys, the numbers they hold)."""
    found: list[tuple[int, int, frozenset[str], list[float]]] = []
    folded = fold_aligned(text)
    for iso in _ISO_DATE.finditer(text):
        iso_year, iso_month, iso_day = (int(group) for group in iso.groups())
        keys = frozenset({f"date:{iso_day}-{iso_month}"})
        found.append((iso.start(), iso.end(), keys, [float(iso_year)]))
    for numeric in _NUMERIC_DATE.finditer(text):
        first, second, short = (int(group) for group in numeric.groups())
        keys = frozenset({f"date:{first}-{second}", f"date:{second}-{first}"})
        full_year = short + 2000 if short < 100 else short
        found.append((numeric.start(), numeric.end(), keys, [float(full_year), float(short)]))
    for named in _month_pattern().finditer(folded):
        month, alone = _months()[named.group(2)]
        day = named.group(1) or named.group(3)
        if day is None and named.group(4) is None and not alone:
            continue
        keys = frozenset({f"month:{month}"} if day is None else {f"date:{int(day)}-{month}"})
        years = [float(named.group(4))] if named.group(4) else []
        found.append((named.start(), named.end(), keys, years))
    return found


def _is_name(text: str, start: int, word: str, language: str) -> bool:
    if len(word) < 2 or _SENTENCE_OPENING.search(text[:start]):
        return False
    if any(char.isdigit() for char in word):
        return True
    inner_capital = any(char.isupper() for char in word[1:])
    # German capitalises every noun: there only acronyms and mixed capitals read as names.
    if language == "de":
        return inner_capital
    return len(word) >= 3 or inner_capital


def name_key(word: str) -> str:
    return "name:" + fold(word)[:NAME_PREFIX]


def facts_of(text: str, language: str) -> list[Fact]:
    """The facts `text` states, in the order read (contacts, dates, quantities, names)."""
    facts: list[Fact] = []
    # Citation markers ("[1]") point at a passage; they state nothing.
    spans: list[tuple[int, int]] = [m.span() for m in _CITATION.finditer(text)]
    for match in _URL.finditer(text):
        url = match.group().rstrip(".,;:!?")
        facts.append(Fact("url", url, frozenset({"url:" + _url_key(url)})))
        spans.append((match.start(), match.start() + len(url)))
    for match in _EMAIL.finditer(text):
        facts.append(Fact("email", match.group(), frozenset({"email:" + match.group().lower()})))
        spans.append(match.span())
    rest = _spans_free(text, spans)
    for start, end, keys in _phones(rest, language):
        facts.append(Fact("phone", text[start:end], frozenset("phone:" + k for k in keys)))
        spans.append((start, end))
    rest = _spans_free(text, spans)
    for start, end, keys, numbers in _dates(rest):
        facts.append(Fact("date", text[start:end], keys))
        if numbers:  # the year, found as a number (any of its readings: "24" is 2024 or 24)
            year_keys = frozenset(f"number:{value_key(float(n))}" for n in numbers)
            facts.append(Fact("date", str(numbers[0]), year_keys))
        spans.append((start, end))
    rest = _spans_free(text, spans)
    facts += _quantities(rest, language)
    for match in _NAME.finditer(rest):
        if _is_name(rest, match.start(), match.group(), language):
            facts.append(Fact("name", match.group(), frozenset({name_key(match.group())})))
    return facts


def _url_key(url: str) -> str:
    bare = re.sub(r"^(?:https?://)?(?:www\.)?", "", url.lower())
    return bare.rstrip("/")


def _quantities(text: str, language: str) -> list[Fact]:
    """Numbers, with their unit or currency when one is written beside them."""
    converted = digits_of_words(text, language)
    folded = fold_aligned(converted)
    facts = []
    for match in NUMBER.finditer(converted):
        values = candidate_values(match.group())
        if not values:
            continue
        unit = unit_after(folded[match.end() :]) or unit_before(folded[: match.start()])
        if unit is None:
            kind = "number"
            keys = frozenset(f"number:{value_key(v)}" for v in values)
        else:
            kind = (
                "amount"
                if unit.dimension.startswith("currency")
                else "percentage"
                if unit.dimension == "percent"
                else "quantity"
            )
            keys = frozenset(f"{unit.dimension}:{value_key(v * unit.factor)}" for v in values)
        facts.append(Fact(kind, match.group(), keys))
    return facts


def passage_keys(text: str, language: str) -> frozenset[str]:
    """Every key a passage holds: its facts' keys, each of its numbers bare (a passage's "24 h" also
    holds the number 24), and every word's name key (a name may open the passage's sentence)."""
    keys: set[str] = set()
    for fact in facts_of(text, language):
        keys |= fact.keys
        if fact.kind in ("number", "date"):
            keys |= {
                "bare:" + key.split(":", 1)[1] for key in fact.keys if key.startswith("number:")
            }
        if fact.kind in ("quantity", "amount", "percentage"):
            keys |= {f"number:{value_key(v)}" for v in candidate_values(fact.text)}
    converted = digits_of_words(text, language)
    for match in NUMBER.finditer(converted):
        keys |= {f"number:{value_key(v)}" for v in candidate_values(match.group())}
    for _start, _end, date_keys, numbers in _dates(text):
        keys |= date_keys
        keys |= {f"month:{key.rsplit('-', 1)[1]}" for key in date_keys if key.startswith("date:")}
        keys |= {f"number:{value_key(float(n))}" for n in numbers}
    for cell in _table_cells(text):
        keys |= passage_keys(cell, language) if cell else frozenset()
    for match in re.finditer(r"[^\W\d_][\w'’-]*|\w*\d\w*", text):
        keys.add(name_key(match.group()))
    return frozenset(keys)


def _table_cells(text: str) -> list[str]:
    """A Markdown table's numeric cells read with their column's header ("30" under "Days" is
    "30 Days"): a table states its units once, in the header."""
    rows = [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in text.splitlines()
        if line.strip().startswith("|")
    ]
    if len(rows) < 2:
        return []
    header = rows[0]
    cells = []
    for row in rows[1:]:
        for column, cell in enumerate(row):
            if column < len(header) and any(char.isdigit() for char in cell):
                cells.append(f"{cell} {header[column]}")
    return cells
