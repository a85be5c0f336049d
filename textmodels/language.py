"""Language identification (py3langid): a text's written language as an ISO 639-1 code, or "" when
the text is too short or the guess too unsure."""

from __future__ import annotations

import functools
from typing import Any

MIN_CONFIDENCE = 0.6
# Shorter texts get no guess: 20 characters of Latin script (below U+0370), and in other scripts 20 UTF-8
# bytes, the unit the identifier reads (langid's features are byte n-grams), since their characters carry
# more: about 10 Cyrillic or Arabic letters, 7 Chinese or Japanese characters ("退货政策是什么？" is a whole
# question).
MIN_SIZE = 20
_LATIN_END = 0x370
# Codes the identifier tells apart that Parley reads as the written language they share: Wu and Cantonese
# are written in Chinese characters, Egyptian and Moroccan Arabic in Arabic script, each read by the same
# models. A short Mandarin question is often split between the three Chinese codes ("1466年巴黎有多少人死于
# 瘟疫？": wuu 0.44, zh 0.43, yue 0.13), so the probabilities are added up before the confidence is judged.
_WRITTEN_AS = {"wuu": "zh", "yue": "zh", "ary": "ar", "arz": "ar"}
# The identifier's class for text with no language in it (numbers, codes, markup): no language.
_NO_LANGUAGE = "zxx"


@functools.cache
def language_identifier() -> Any:
    from py3langid.langid import MODEL_DIR, MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_modelpath(MODEL_DIR / MODEL_FILE, norm_probs=True)


def language_identifier_load() -> None:
    """Load the identifier now (seconds of CPU cold: docs/decisions/first-ten-minutes.md), e.g. in a
    worker's main process before its pool forks."""
    language_identifier()


@functools.lru_cache(maxsize=256)
def language_detect(text: str) -> str:
    """An ISO 639-1 code, or '' when the text is too short or the guess too unsure.

    Kept for the last texts asked: a turn asks it of its question three times (the answer's locale, the
    documents' languages, the search plan) and of the same top chunks turn after turn."""
    sample = text[:20000]
    if _size(sample.strip()) < MIN_SIZE:
        return ""
    shares: dict[str, float] = {}
    for code, probability in language_identifier().rank(sample):
        written = _WRITTEN_AS.get(code, code)
        shares[written] = shares.get(written, 0.0) + probability
    code, confidence = max(shares.items(), key=lambda share: share[1], default=("", 0.0))
    return code if confidence >= MIN_CONFIDENCE and code != _NO_LANGUAGE else ""


def _size(text: str) -> int:
    """`text`'s length for MIN_SIZE: a Latin character counts one, any other its UTF-8 bytes."""
    if len(text) >= MIN_SIZE:
        return len(text)  # every character counts at least one
    return sum(
        1 if ord(char) < _LATIN_END else len(char.encode("utf-8", "surrogatepass")) for char in text
    )
