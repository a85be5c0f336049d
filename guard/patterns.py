"""The scored injection patterns: each language's lexicon built into the same pattern shapes, plus the
shapes no language owns (fake role tags and delimiters, a forced JSON status, "starting with 'You are'").

Weights say how sure a match alone is: strong shapes (an override naming which instructions, a fake
`<system>` tag) flag on their own, weak ones (an "act as", a "SYSTEM:" line) need another cue or the
classifier to agree. Hits combine by noisy-or, so two weak cues together count as one strong.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from guard.lexicon import LEXICONS
from guard.shapes import (
    FAINT,
    HALF,
    MEDIUM,
    PUBLIC_SET_SHAPES,
    SHARED_SHAPES,
    SPOKEN_SHAPES,
    STRONG,
    WEAK,
)

# Between a verb and its object: a few words, never across a sentence end.
_GAP = r"[^.?!\n]{0,40}?"


@dataclass(frozen=True)
class PatternHit:
    label: str
    language: str  # "" for the shapes no language owns
    weight: float
    start: int
    end: int


@dataclass(frozen=True)
class _Pattern:
    label: str
    language: str
    weight: float
    regex: re.Pattern[str]


def _language_patterns() -> list[_Pattern]:
    built: list[_Pattern] = []
    for language, words in LEXICONS.items():
        shapes = (
            (
                "override",
                STRONG,
                rf"\b({words['override_verbs']})\b{_GAP}\b({words['override_objects']})",
            ),
            (
                "override",
                WEAK,
                rf"\b({words['override_verbs']})\b{_GAP}\b({words['override_weak']})\b",
            ),
            # The object first: "die obigen Ausführungen ignorieren" (German's infinitive order).
            (
                "override",
                MEDIUM,
                rf"\b({words['override_objects']})\b{_GAP}\b({words['override_verbs']})\b",
            ),
            ("override", STRONG, rf"\b({words['disobey']})"),
            # "Ignore the documents": a user may mean a product's documents, so only half a cue.
            (
                "override",
                HALF,
                rf"\b({words['override_verbs']})\b{_GAP}\b({words['context_objects']})\b",
            ),
            ("context_override", 0.45, rf"\b({words['own_knowledge']})\b"),
            ("prompt_extraction", 0.8, rf"\b({words['ask_prompt']})\b"),
            (
                "prompt_extraction",
                STRONG,
                rf"\b({words['extract_verbs']})\b{_GAP}\b({words['extract_objects']})",
            ),
            ("role_play", 0.8, rf"\b({words['persona']})"),
            (
                "prompt_extraction",
                MEDIUM,
                rf"\b({words['extract_verbs']})\b{_GAP}\b({words['extract_more']})\b",
            ),
            ("role_play", FAINT, rf"\b({words['persona_weak']})"),
            ("role_play", MEDIUM, rf"\b({words['persona_more']})\b"),
            (
                "policy_disabled",
                MEDIUM,
                rf"\b({words['policy_nouns']})\b{_GAP}\b({words['policy_off']})",
            ),
            ("fake_system", MEDIUM, rf"\b({words['new_orders']})"),
            # "Your earlier directions no longer matter": the instructions declared void, not ignored.
            (
                "override",
                0.8,
                rf"\b({words['void_subject']})\b{_GAP}\b({words['void_state']})",
            ),
            # "Say you found it in the documents": the answer's status demanded in words.
            ("format_hijack", MEDIUM, rf"\b({words['status_words']})"),
            # "an AI that never refuses", "speak as my late grandma": a persona without "you are".
            ("role_play", 0.8, rf"\b({words['persona_unbound']})"),
        )
        built.extend(
            _Pattern(label, language, weight, re.compile(regex)) for label, weight, regex in shapes
        )
    return built


_PATTERNS: tuple[_Pattern, ...] = (
    *_language_patterns(),
    *(
        _Pattern(label, "", weight, re.compile(regex))
        for shapes in (SHARED_SHAPES, PUBLIC_SET_SHAPES, SPOKEN_SHAPES)
        for label, weight, regex in shapes
    ),
)


def patterns_match(folded: str) -> list[PatternHit]:
    """Every pattern that matches the folded text (its first match), strongest first."""
    hits = []
    for p in _PATTERNS:
        if match := p.regex.search(folded):
            s, e = match.span()
            hits.append(
                PatternHit(label=p.label, language=p.language, weight=p.weight, start=s, end=e)
            )
    hits.sort(key=lambda hit: hit.weight, reverse=True)
    return hits


def patterns_score(hits: list[PatternHit]) -> float:
    """Noisy-or of the hits' weights, one per label (the same cue matched twice is still one cue)."""
    best: dict[str, float] = {}
    for hit in hits:
        best[hit.label] = max(best.get(hit.label, 0.0), hit.weight)
    miss = 1.0
    for weight in best.values():
        miss *= 1.0 - weight
    return 1.0 - miss
