"""Lexical support: how much of a question's wording a passage holds.

Two measures, both shares of the question's weight in [0, 1]:
- `terms`: the question's content words (stop words out, Snowball stems of the question's language, from
  PyStemmer; bm25s's stop-word lists), found among the passage's stems in the same language. It means
  something only when the question and the passage share a language.
- `anchors`: the question's numbers and names (a capitalised word not opening the sentence, or any word
  with a digit), found in the passage whatever its language: "1998", "ABC", "Panthers" read the same in a
  German question and an English paragraph. A name matches on its first five letters, so inflections
  meet ("Ottomans" / "ottomane").
- `asks_quantity` / `states_quantity`: a question asking how long, many or much, or when; a text stating a
  number (digits or number words).

Longer words weigh more (a rough stand-in for rarity that needs no corpus statistics): a word's weight
is its length in characters, capped.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

_WORD = re.compile(r"[^\W_]+(?:['’\-][^\W_]+)*", re.UNICODE)
_STEMMER_NAMES = {
    "en": "english",
    "fr": "french",
    "de": "german",
    "es": "spanish",
    "it": "italian",
    "pt": "portuguese",
    "nl": "dutch",
    "sv": "swedish",
    "da": "danish",
    "no": "norwegian",
    "ru": "russian",
    "tr": "turkish",
}
_STOPWORD_LISTS = {
    "en": "STOPWORDS_EN_PLUS",
    "fr": "STOPWORDS_FRENCH",
    "de": "STOPWORDS_GERMAN",
    "es": "STOPWORDS_SPANISH",
    "it": "STOPWORDS_ITALIAN",
    "pt": "STOPWORDS_PORTUGUESE",
    "nl": "STOPWORDS_DUTCH",
    "sv": "STOPWORDS_SWEDISH",
    "da": "STOPWORDS_DANISH",
    "no": "STOPWORDS_NORWEGIAN",
    "ru": "STOPWORDS_RUSSIAN",
    "tr": "STOPWORDS_TURKISH",
}
# Question words that bm25s's lists keep but that say nothing of the topic.
_QUESTION_WORDS = (
    "what which who whom whose when where why how many much does did "
    "quel quelle quels quelles qui quoi quand comment combien pourquoi lequel laquelle est-ce "
    "welche welcher welches wer wen wem wann wie viele viel warum wieso "
    "qué cuál cuáles quién quiénes cuándo dónde cómo cuánto cuántos cuántas "
    "quale quali chi quando dove come perché quanto quanti qual quais quem onde quantos"
)
NAME_PREFIX = 5
WEIGHT_CAP = 10


@dataclass(frozen=True)
class Wording:
    """A text's words as the measures compare them."""

    stems: frozenset[str]
    anchors: frozenset[str]  # casefolded numbers, and names cut to NAME_PREFIX letters
    folded: str  # the text casefolded without accents, for anchors found inside longer words


@dataclass(frozen=True)
class QuestionWording:
    terms: dict[str, int]  # content stem -> weight
    anchors: dict[str, int]  # anchor -> weight


def _plain(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


@functools.lru_cache(maxsize=16)
def _stemmer(language: str) -> Any:
    import Stemmer  # type: ignore[import-not-found]  # PyStemmer (compiled) ships no type hints

    name = _STEMMER_NAMES.get(language)
    return Stemmer.Stemmer(name) if name else None


@functools.lru_cache(maxsize=16)
def _stop_words(language: str) -> frozenset[str]:
    import bm25s.stopwords  # type: ignore[import-untyped]  # bm25s ships no type hints

    listed = getattr(bm25s.stopwords, _STOPWORD_LISTS.get(language, ""), ())
    return frozenset(_plain(word) for word in (*listed, *_QUESTION_WORDS.split()))


def _words(text: str) -> list[str]:
    return _WORD.findall(text)


def _stems(words: Iterable[str], language: str) -> list[str]:
    stop = _stop_words(language)
    kept = [_plain(word) for word in words]
    kept = [word for word in kept if word not in stop and (len(word) > 1 or word.isdigit())]
    stemmer = _stemmer(language)
    return list(stemmer.stemWords(kept)) if stemmer is not None else kept


def _anchors(words: list[str]) -> list[str]:
    found = []
    for index, word in enumerate(words):
        if any(char.isdigit() for char in word):
            found.append(_plain(word))
        elif index > 0 and word[:1].isupper() and len(word) > 1:
            found.append(_plain(word)[:NAME_PREFIX])
    return found


def _weight(word: str) -> int:
    return min(WEIGHT_CAP, max(2, len(word)))


@functools.lru_cache(maxsize=4096)
def wording(text: str, language: str) -> Wording:
    words = _words(text)
    return Wording(
        stems=frozenset(_stems(words, language)),
        anchors=frozenset(_anchors(words)),
        folded=_plain(text),
    )


@functools.lru_cache(maxsize=512)
def question_wording(question: str, language: str) -> QuestionWording:
    words = _words(question)
    return QuestionWording(
        terms={stem: _weight(stem) for stem in _stems(words, language)},
        anchors={anchor: _weight(anchor) for anchor in _anchors(words)},
    )


def term_support(question: QuestionWording, passage: Wording) -> float:
    """The share of the question's content words the passage holds (same language)."""
    total = sum(question.terms.values())
    if not total:
        return 0.0
    return sum(w for stem, w in question.terms.items() if stem in passage.stems) / total


def anchor_support(question: QuestionWording, passage: Wording) -> float:
    """The share of the question's numbers and names the passage holds, in any language; 1.0 when the
    question has none (nothing to miss)."""
    total = sum(question.anchors.values())
    if not total:
        return 1.0
    held = sum(
        w
        for anchor, w in question.anchors.items()
        if anchor in passage.anchors or (not anchor[:1].isdigit() and anchor in passage.folded)
    )
    return held / total


# Questions that ask for a quantity, a duration or a date, in the six languages the product speaks.
_QUANTITY_QUESTION = re.compile(
    r"\b(how (long|many|much|often|far|old)|what (year|date|time)|when|combien|quand|"
    r"en quelle année|à quelle heure|quel âge|wie (lange|viele?|oft|weit|alt)|wann|in welchem jahr|"
    r"cu[aá]nt[oa]s?|cu[aá]ndo|en qu[eé] año|quant[oiae]|quando|in che anno|quantos?|quantas?|"
    r"em que ano)\b",
    re.IGNORECASE,
)
# Number words a sentence may state a quantity with instead of digits.
_NUMBER_WORDS_TEXT = (
    "one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty forty "
    "fifty sixty hundred thousand million half dozen un une deux trois quatre cinq six sept huit "
    "neuf dix douze quinze vingt trente cent mille demi demie ein eine zwei drei vier funf sechs "
    "sieben acht neun zehn zwolf zwanzig hundert tausend halb uno dos tres cuatro cinco seis siete "
    "ocho nueve diez doce veinte cien mil medio media due tre quattro cinque sette otto nove dieci "
    "venti cento mezzo um dois quatro cinco seis sete oito nove dez vinte cem meio meia"
)
_NUMBER_WORDS = frozenset(_NUMBER_WORDS_TEXT.split())


def asks_quantity(question: str) -> bool:
    """Whether the question asks how long, how many, how much or when."""
    return bool(_QUANTITY_QUESTION.search(question))


def states_quantity(text: str) -> bool:
    """Whether the text states a number: digits, or a number word."""
    return any(char.isdigit() for char in text) or any(
        word in _NUMBER_WORDS for word in _plain(text).split()
    )
