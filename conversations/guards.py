"""Cheap guards run before any LLM call: the injection guard's message screen (guard.screen), explicit
requests for a human, small talk.

The detector scores injections in six languages and the bot's threshold decides; the human-request
and small-talk patterns cover the same six (English, French, German, Spanish, Italian, Portuguese) and
are deliberately narrow: a miss costs an LLM call (offline, a search), a false alarm would refuse a
legitimate question.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from enum import StrEnum

from guard.detector import DEFAULT_THRESHOLD
from guard.screen import message_flagged


class GuardKind(StrEnum):
    INJECTION = "injection"
    HUMAN_REQUEST = "human_request"
    SMALL_TALK = "small_talk"


@dataclass(frozen=True)
class GuardMatch:
    kind: GuardKind
    # The cue's name (e.g. "override", "classifier") and the part of the message that carried it.
    label: str
    excerpt: str
    language: str = "en"
    # The injection detector's score (1.0 for the pattern-only guards).
    score: float = 1.0


_I = re.IGNORECASE

_HUMAN: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "en",
        re.compile(
            r"\b(talk|speak|chat)\s+(to|with)\s+(a|an|some|the)?\s*(real\s+|live\s+)?(human|person|agent|someone|"
            r"somebody|representative|operator|advisor|adviser)\b",
            _I,
        ),
    ),
    (
        "en",
        re.compile(
            r"\b((human|live|real)\s+(agent|person|being|support)|transfer me|connect me (to|with) (an? )?"
            r"(agent|human|person)|i want an? (human|agent|person))\b",
            _I,
        ),
    ),
    (
        "fr",
        re.compile(
            r"\b(parler|discuter|[ée]changer)\s+(à|a|avec)\s+(un|une|quelqu'un|quelqu’un|un vrai|une vraie)?\s*"
            r"(vrai\s+|vraie\s+)?(humain|humaine|conseill[eè]re?|personne|agent|op[ée]rat(eur|rice)|quelqu'un|"
            r"quelqu’un)\b",
            _I,
        ),
    ),
    (
        "fr",
        re.compile(
            r"\b(mettez[- ]moi en (relation|contact)|un (vrai )?(humain|conseiller)|une vraie personne|"
            r"passez[- ]moi un)\b",
            _I,
        ),
    ),
    (
        "de",
        re.compile(
            r"\bmit\s+(jemandem|(einem|einer)\s+(echten\s+|richtigen\s+)?(menschen|mitarbeiter(in)?|"
            r"berater(in)?|person|ansprechpartner(in)?|(kundendienst|kunden)?berater(in)?))\s+(\S+\s+){0,2}"
            r"(sprechen|reden|chatten|verbunden werden)\b|\b(echten|richtigen|echter|richtiger)\s+"
            r"(menschen|mensch|mitarbeiter(in)?)\b|\bverbinden sie mich\b",
            _I,
        ),
    ),
    (
        "es",
        re.compile(
            r"\b(hablar|conversar|chatear)\s+con\s+((un|una|alg[uú]n|alguna)\s+)?(humano|persona|agente|"
            r"asesora?|operadora?|representante|alguien)\b|\b(humano|persona|agente)\s+(real|de verdad)\b|"
            r"\bp[áa]same con\b",
            _I,
        ),
    ),
    (
        "it",
        re.compile(
            r"\bparlare\s+con\s+((un|una|un vero|una vera)\s+)?(operatore|operatrice|persona|umano|"
            r"consulente|agente|qualcuno)\b|\b(operatore|persona)\s+(umano|umana|reale|vera)\b|"
            r"\bmi passi un operatore\b",
            _I,
        ),
    ),
    (
        "pt",
        re.compile(
            r"\bfalar\s+com\s+((um|uma|o|a)\s+)?(humano|pessoa|atendente|agente|operadora?|consultora?|"
            r"algu[ée]m)\b|\b(atendente|pessoa)\s+(humano|humana|real|de verdade)\b",
            _I,
        ),
    ),
)

# Whole messages made only of these phrases are small talk; longest phrases are tried first.
# The category of the last meaningful phrase ("Hi, thanks!" → thanks) names the reply.
_SMALL_TALK: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {
        "greeting": (
            "hi",
            "hello",
            "hey",
            "hiya",
            "good morning",
            "good afternoon",
            "good evening",
        ),
        "thanks": (
            "thanks",
            "thank you",
            "thanks a lot",
            "thank you very much",
            "many thanks",
            "ok",
            "okay",
            "great",
            "cool",
            "nice",
            "perfect",
        ),
        "farewell": ("bye", "goodbye", "see you", "have a nice day"),
        "how_are_you": ("how are you", "how are you doing"),
        "filler": ("there", "you", "so much", "all"),
    },
    "fr": {
        "greeting": ("bonjour", "bonsoir", "salut", "coucou"),
        "thanks": (
            "merci",
            "merci beaucoup",
            "merci bien",
            "d'accord",
            "super",
            "parfait",
            "génial",
        ),
        "farewell": ("au revoir", "à bientôt", "a bientot", "bonne journée", "bonne soirée"),
        "how_are_you": (
            "ça va",
            "ca va",
            "comment ça va",
            "comment allez-vous",
            "comment allez vous",
        ),
        "filler": ("à vous", "madame", "monsieur"),
    },
    "de": {
        "greeting": (
            "hallo",
            "guten tag",
            "guten morgen",
            "guten abend",
            "servus",
            "moin",
            "grüß gott",
        ),
        "thanks": (
            "danke",
            "danke schön",
            "dankeschön",
            "vielen dank",
            "danke sehr",
            "alles klar",
            "super",
            "perfekt",
        ),
        "farewell": ("tschüss", "auf wiedersehen", "bis bald", "schönen tag noch", "schönen tag"),
        "how_are_you": ("wie geht's", "wie gehts", "wie geht es ihnen", "wie geht es dir"),
        "filler": ("ihnen", "dir", "sehr"),
    },
    "es": {
        "greeting": (
            "hola",
            "buenos días",
            "buenos dias",
            "buenas tardes",
            "buenas noches",
            "buenas",
        ),
        "thanks": (
            "gracias",
            "muchas gracias",
            "mil gracias",
            "vale",
            "de acuerdo",
            "perfecto",
            "genial",
        ),
        "farewell": ("adiós", "adios", "hasta luego", "hasta pronto", "que tenga un buen día"),
        "how_are_you": ("qué tal", "que tal", "cómo estás", "como estas", "cómo está", "como esta"),
        "filler": ("señor", "señora", "a usted"),
    },
    "it": {
        "greeting": ("ciao", "buongiorno", "buonasera", "salve"),
        "thanks": ("grazie", "grazie mille", "va bene", "perfetto", "ottimo"),
        "farewell": ("arrivederci", "a presto", "buona giornata", "buona serata"),
        "how_are_you": ("come stai", "come sta", "come va"),
        "filler": ("signore", "signora", "a lei"),
    },
    "pt": {
        "greeting": ("olá", "ola", "oi", "bom dia", "boa tarde", "boa noite"),
        "thanks": ("obrigado", "obrigada", "muito obrigado", "muito obrigada", "perfeito", "ótimo"),
        "farewell": ("tchau", "até logo", "ate logo", "até mais", "adeus"),
        "how_are_you": ("tudo bem", "como vai", "como está", "como vai você"),
        "filler": ("senhor", "senhora"),
    },
}
# Each language's (phrase, category) pairs, longest phrase first: sorted once, not per message.
_SMALL_TALK_PHRASES = {
    language: sorted(
        ((phrase, category) for category, phrases in categories.items() for phrase in phrases),
        key=lambda pair: len(pair[0]),
        reverse=True,
    )
    for language, categories in _SMALL_TALK.items()
}
_PUNCTUATION = re.compile(r"[^\w\s'’-]+")


def message_screen(
    *, text: str, injection_threshold: float = DEFAULT_THRESHOLD
) -> GuardMatch | None:
    """The first guard `text` trips (injection, then a request for a human, then small talk), or None."""
    if detection := message_flagged(text=text, threshold=injection_threshold):
        return GuardMatch(
            kind=GuardKind.INJECTION,
            label=detection.label,
            excerpt=detection.excerpt,
            language=detection.language,
            score=detection.score,
        )
    for language, pattern in _HUMAN:
        if match := pattern.search(text):
            return GuardMatch(
                kind=GuardKind.HUMAN_REQUEST,
                label="human_request",
                excerpt=match.group(0),
                language=language,
            )
    if small_talk := _small_talk(text):
        language, category = small_talk
        return GuardMatch(
            kind=GuardKind.SMALL_TALK, label=category, excerpt=text.strip(), language=language
        )
    return None


def _small_talk(text: str) -> tuple[str, str] | None:
    """(language, category) when `text` is made only of small-talk phrases."""
    normalized = " ".join(_PUNCTUATION.sub(" ", unicodedata.normalize("NFC", text).lower()).split())
    if not normalized or len(normalized) > 80:
        return None
    for language, phrases in _SMALL_TALK_PHRASES.items():
        rest, category = normalized, None
        while rest:
            found = next(
                ((p, c) for p, c in phrases if rest == p or rest.startswith(p + " ")), None
            )
            if found is None:
                break
            category = category if found[1] == "filler" else found[1]
            rest = rest[len(found[0]) :].strip()
        if not rest and category:
            return language, category
    return None
