"""Personal data found in free text and replaced by typed placeholders: e-mail addresses, phone numbers
(`phonenumbers`: valid for a region, or international), IBANs and card numbers whose checksums hold
(`python-stdnum`: ISO 7064 for IBANs, Luhn for cards). Look-alikes (order numbers, dates, prices,
tracking numbers, a card-like number failing Luhn) stay as they are: a checksum or a numbering plan
decides, not the digit count.

It sits in `core` so every app that stores text (turns and audits in `conversations`, messages and
feedback in `handoff`, exports in `insights`, the log filter) can call it. bench/privacy measures it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import Any

import phonenumbers
from django.conf import settings
from stdnum import iban, luhn


class PiiKind(StrEnum):
    EMAIL = "email"
    PHONE = "phone"
    IBAN = "iban"
    CARD = "card"


PLACEHOLDERS: dict[PiiKind, str] = {kind: f"[{kind.value}]" for kind in PiiKind}


@dataclass(frozen=True, order=True)
class PiiSpan:
    start: int
    end: int
    kind: PiiKind


# The local part and domain of an address as people type them (RFC 5322's dot-atoms; quoted local
# parts are rare in chat and left alone). A label may not start or end with a hyphen.
_EMAIL = re.compile(
    r"(?<![\w.+-])[\w!#$%&'*+/=?^`{|}~-]+(?:\.[\w!#$%&'*+/=?^`{|}~-]+)*"
    r"@(?:[^\W_](?:[\w-]*[^\W_])?\.)+[^\W\d_]{2,63}(?![\w-])"
)
# An IBAN starts with a country code and two check digits; the rest comes in groups (of four when
# printed) separated by at most one space or hyphen. Candidates are cut back group by group until
# the checksum holds, so a word typed after the number is never swallowed.
_IBAN_START = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{2}[0-9]{2}")
_IBAN_GROUP = re.compile(r"[ -]?([A-Za-z0-9]{1,4})")
IBAN_MAX = 34
# A card number: 13 to 19 digits, in groups separated by single spaces or hyphens.
_CARD = re.compile(r"(?<![\w.,/-])[0-9](?:[ -]?[0-9]){12,18}(?![\w]|[.,/-][0-9])")
# Issuer prefixes of the card networks (Visa 4; Mastercard 51-55 and 2221-2720; Amex 34, 37; Diners
# 30, 36, 38; Discover and UnionPay 6; JCB 35; Maestro 50, 56-69): a Luhn-valid digit run from
# elsewhere (a tracking or account number) rarely starts so and has a network's length.
_CARD_IIN = re.compile(r"^(?:4|5[0-9]|2[2-7]|3[0-9]|6)")
# A group holding a digit, then one separator, right before a candidate: the number goes on leftwards.
_NUMBER_BEFORE = re.compile(r"[A-Za-z0-9]*[0-9][A-Za-z0-9]*[ -]\Z")
# Digits that could be a phone number: a long enough run with the separators people type.
_PHONE_HINT = re.compile(r"[0-9][0-9 ().\-/]{5,}[0-9]")
_MIN_PHONE_DIGITS = 7
# A country code's prefix before a digit: "+33", "+ 33", "0033".
_INTERNATIONAL = re.compile(r"(?:\+|(?<![0-9])00) ?[1-9]")


def _email_spans(text: str) -> Iterable[PiiSpan]:
    for match in _EMAIL.finditer(text):
        yield PiiSpan(match.start(), match.end(), PiiKind.EMAIL)


def _iban_spans(text: str) -> Iterable[PiiSpan]:
    position = 0
    while match := _IBAN_START.search(text, position):
        ends = []  # where each group ends, the longest candidate last
        cursor, length = match.end(), 4
        while group := _IBAN_GROUP.match(text, cursor):
            length += len(group.group(1))
            if length > IBAN_MAX:
                break
            cursor = group.end()
            ends.append(cursor)
        found = None
        for end in reversed(ends):
            after = text[end : end + 1]
            if after.isalnum():
                continue  # the candidate would cut a word or a number in two
            if iban.is_valid(text[match.start() : end]):
                found = end
                break
        if found is None:
            position = match.start() + 1
            continue
        yield PiiSpan(match.start(), found, PiiKind.IBAN)
        position = found


def _card_spans(text: str) -> Iterable[PiiSpan]:
    for match in _CARD.finditer(text):
        if _NUMBER_BEFORE.search(text, 0, match.start()):
            continue  # the tail of a longer number (an IBAN, an account): not a card of its own
        digits = re.sub(r"[ -]", "", match.group())
        if _CARD_IIN.match(digits) and luhn.is_valid(digits):
            yield PiiSpan(match.start(), match.end(), PiiKind.CARD)


# The regions whose national formats are recognised when settings name none (config.settings'
# PARLEY_REDACTION_PHONE_REGIONS defaults to the same list).
DEFAULT_PHONE_REGIONS = ("US", "GB", "FR", "DE", "ES", "IT", "NL", "BE", "CH", "AT")


@lru_cache(maxsize=1)
def _phone_regions() -> tuple[str, ...]:
    regions = getattr(settings, "PARLEY_REDACTION_PHONE_REGIONS", ()) or DEFAULT_PHONE_REGIONS
    return tuple(region.upper() for region in regions)


def _phone_spans(text: str, regions: Sequence[str]) -> Iterable[PiiSpan]:
    """Phone numbers valid in one of `regions` (national formats) or anywhere (international ones).

    The matcher leaves dates, times and numbers glued to letters alone; it runs once per region, and
    that is the costly part of redaction (docs/decisions/privacy.md), so texts without a digit run long
    enough to be a phone number skip it."""
    hints = [m for m in _PHONE_HINT.finditer(text) if _digit_count(m.group()) >= _MIN_PHONE_DIGITS]
    if not hints:
        return
    # Written nationally, a number must be valid and grouped as its region writes it
    # (STRICT_GROUPING), so "2024-118734" (a reference) is not Washington's 202-411-8734 and
    # "01.02.2023" no French line. Written with its country code (+, 00), validity is enough: the
    # prefix is the evidence ("+33 (0)8 10 46 76 87", "00 800 6 7 8 9 10 11" are grouped in ways
    # libphonenumber's patterns do not list).
    strict = phonenumbers.Leniency.STRICT_GROUPING
    spans = [
        (match.start, match.end)
        for region in regions
        for match in phonenumbers.PhoneNumberMatcher(text, region, leniency=strict)
    ]
    if _INTERNATIONAL.search(text):  # region None: international numbers only, one pass
        matcher = phonenumbers.PhoneNumberMatcher(text, None, leniency=phonenumbers.Leniency.VALID)
        spans += [(match.start, match.end) for match in matcher]
    spans.sort()
    # Regions may read different parts of one number ("0033 1 23 45 67 89": France the whole, another
    # a tail): the number is the union, so no digit of it stays in clear.
    merged: list[list[int]] = []
    for start, end in spans:
        if merged and start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    for start, end in merged:
        yield PiiSpan(start, end, PiiKind.PHONE)


def _digit_count(text: str) -> int:
    return sum(character.isdigit() for character in text)


def pii_find(text: str, *, regions: Sequence[str] | None = None) -> list[PiiSpan]:
    """The personal data in `text`, in order, without overlaps. E-mail addresses first (they may hold
    digits), then IBANs and cards (checksummed: surer than a numbering plan), then phone numbers in
    what is left."""
    if not text:
        return []
    taken: list[PiiSpan] = []
    finders: list[Iterable[PiiSpan]] = [
        _email_spans(text),
        _iban_spans(text),
        _card_spans(text),
        _phone_spans(text, _phone_regions() if regions is None else regions),
    ]
    for spans in finders:
        for span in spans:
            if not any(span.start < other.end and other.start < span.end for other in taken):
                taken.append(span)
    return sorted(taken)


def pii_redact(text: str, *, regions: Sequence[str] | None = None) -> str:
    """`text` with each piece of personal data replaced by its kind's placeholder ("[email]"...)."""
    spans = pii_find(text, regions=regions)
    if not spans:
        return text
    parts, cursor = [], 0
    for span in spans:
        parts += [text[cursor : span.start], PLACEHOLDERS[span.kind]]
        cursor = span.end
    parts.append(text[cursor:])
    return "".join(parts)


def pii_redact_json(value: Any) -> Any:
    """A JSON value (an audit's attempts, parsed output, contexts) with every string redacted."""
    if isinstance(value, str):
        return pii_redact(value)
    if isinstance(value, list):
        return [pii_redact_json(item) for item in value]
    if isinstance(value, dict):
        return {key: pii_redact_json(item) for key, item in value.items()}
    return value


class PiiRedactingFilter(logging.Filter):
    """A log filter: the record's message, arguments formatted in, leaves with personal data redacted
    (a visitor's text reaches logs through errors that quote it). Installed by config.settings."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = pii_redact(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        return True
