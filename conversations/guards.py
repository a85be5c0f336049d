"""Cheap guards run before any LLM call: injection patterns, explicit requests for a human, small talk.

Patterns cover English and French. They are deliberately narrow: a miss costs an LLM call
(which applies the same rules), a false alarm would refuse a legitimate question.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from enum import StrEnum


class GuardKind(StrEnum):
    INJECTION = "injection"
    HUMAN_REQUEST = "human_request"
    SMALL_TALK = "small_talk"


@dataclass(frozen=True)
class GuardMatch:
    kind: GuardKind
    # The pattern's name (e.g. "override_instructions") and the part of the message it matched.
    label: str
    excerpt: str
    language: str = "en"


_I = re.IGNORECASE
_INJECTION: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    ("override_instructions", "en", re.compile(
        r"\b(ignore|disregard|forget|override|bypass)\b[^.?!]{0,40}\b(instructions?|rules|prompts?|guidelines|"
        r"directives|polic(y|ies))\b", _I)),
    ("reveal_prompt", "en", re.compile(
        r"\b(reveal|show|print|repeat|display|leak|tell me)\b[^.?!]{0,30}\b(system prompt|hidden (instructions|prompt)"
        r"|your (initial |original |system )?(prompt|instructions)"
        r"|the (initial|original|system) (prompt|instructions))\b",
        _I)),
    ("role_override", "en", re.compile(
        r"\b(you are now|from now on,? you|act as (an? )?(unrestricted|unfiltered|jailbroken)|developer mode|"
        r"jailbreak|do anything now)\b", _I)),
    ("override_instructions", "fr", re.compile(
        r"\b(ignore[rsz]?|oublie[rsz]?|contourne[rsz]?)\b[^.?!]{0,40}\b(instructions?|consignes?|r[eè]gles|"
        r"directives|prompts?)\b", _I)),
    ("reveal_prompt", "fr", re.compile(
        r"\b(r[ée]v[èe]le[rsz]?|affiche[rsz]?|montre[rsz]?|r[ée]p[èe]te[rsz]?|donne[rsz]?)(-moi)?\b[^.?!]{0,30}"
        r"\b(prompt( syst[èe]me)?|instructions (cach[ée]es|syst[èe]me|initiales))\b", _I)),
    ("role_override", "fr", re.compile(
        r"(\btu es d[ée]sormais\b|\bà partir de maintenant,? tu\b|\bmode d[ée]veloppeur\b)", _I)),
)  # fmt: skip

_HUMAN: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("en", re.compile(
        r"\b(talk|speak|chat)\s+(to|with)\s+(a|an|some|the)?\s*(real\s+|live\s+)?(human|person|agent|someone|"
        r"somebody|representative|operator|advisor|adviser)\b", _I)),
    ("en", re.compile(
        r"\b((human|live|real)\s+(agent|person|being|support)|transfer me|connect me (to|with) (an? )?"
        r"(agent|human|person)|i want an? (human|agent|person))\b", _I)),
    ("fr", re.compile(
        r"\b(parler|discuter|[ée]changer)\s+(à|a|avec)\s+(un|une|quelqu'un|quelqu’un|un vrai|une vraie)?\s*"
        r"(vrai\s+|vraie\s+)?(humain|humaine|conseill[eè]re?|personne|agent|op[ée]rat(eur|rice)|quelqu'un|"
        r"quelqu’un)\b", _I)),
    ("fr", re.compile(
        r"\b(mettez[- ]moi en (relation|contact)|un (vrai )?(humain|conseiller)|une vraie personne|"
        r"passez[- ]moi un)\b", _I)),
)  # fmt: skip

# Whole messages made only of these phrases are small talk; longest phrases are tried first.
_SMALL_TALK: dict[str, tuple[str, ...]] = {
    "en": ("hi", "hello", "hey", "hiya", "good morning", "good afternoon", "good evening", "thanks", "thank you",
           "thanks a lot", "thank you very much", "many thanks", "bye", "goodbye", "see you", "have a nice day",
           "how are you", "how are you doing", "ok", "okay", "great", "cool", "nice", "perfect", "there",
           "you", "so much", "all"),
    "fr": ("bonjour", "bonsoir", "salut", "coucou", "merci", "merci beaucoup", "merci bien", "au revoir",
           "à bientôt", "a bientot", "bonne journée", "bonne soirée", "ça va", "ca va", "comment ça va",
           "comment allez-vous", "comment allez vous", "d'accord", "super", "parfait", "génial", "à vous",
           "madame", "monsieur"),
}  # fmt: skip
_PUNCTUATION = re.compile(r"[^\w\s'’-]+")
_FILLERS = {"there", "you", "so much", "all", "à vous", "madame", "monsieur"}


def message_screen(*, text: str) -> GuardMatch | None:
    """The first guard `text` trips (injection, then a request for a human, then small talk), or None."""
    for label, language, pattern in _INJECTION:
        if match := pattern.search(text):
            return GuardMatch(GuardKind.INJECTION, label, match.group(0), language)
    for language, pattern in _HUMAN:
        if match := pattern.search(text):
            return GuardMatch(GuardKind.HUMAN_REQUEST, "human_request", match.group(0), language)
    small_talk = _small_talk_language(text)
    if small_talk:
        return GuardMatch(GuardKind.SMALL_TALK, "small_talk", text.strip(), small_talk)
    return None


def _small_talk_language(text: str) -> str | None:
    normalized = " ".join(_PUNCTUATION.sub(" ", unicodedata.normalize("NFC", text).lower()).split())
    if not normalized or len(normalized) > 80:
        return None
    for language, phrases in _SMALL_TALK.items():
        rest, matched = normalized, False
        ordered = sorted(phrases, key=len, reverse=True)
        while rest:
            phrase = next((p for p in ordered if rest == p or rest.startswith(p + " ")), None)
            if phrase is None:
                break
            matched = matched or phrase not in _FILLERS
            rest = rest[len(phrase) :].strip()
        if not rest and matched:
            return language
    return None
