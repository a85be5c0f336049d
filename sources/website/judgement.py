"""Pages that are not knowledge though they answer 200: soft 404s (a "not found" page, recognised by the
text a made-up URL of the same host gets, or by a not-found title on a short page), login walls (a
password form with little else) and empty shells (too little main text, e.g. an unrendered app)."""

from __future__ import annotations

import re
from dataclasses import dataclass

SHINGLE = 3
SOFT_404_SIMILARITY = 0.8  # word-shingle Jaccard to the made-up URL's page
CUE_MAX_WORDS = (
    150  # a not-found title counts on a page this short (an article about 404s is longer)
)
LOGIN_WALL_MAX_WORDS = 120

# Titles and first headings of not-found pages, in the languages Parley serves.
_NOT_FOUND = re.compile(
    r"\b404\b|not\s+found|page\s+(?:does\s+not|doesn'?t)\s+exist|no\s+longer\s+(?:exists|available)"
    r"|introuvable|n'existe\s+pas|nicht\s+gefunden|existiert\s+nicht|no\s+encontrad[ao]|no\s+existe"
    r"|non\s+trovat[ao]|niet\s+gevonden|não\s+encontrad[ao]|nie\s+znaleziono|не\s+найден"
    r"|見つかりません|找不到|未找到|페이지를\s+찾을\s+수\s+없",
    re.IGNORECASE,
)


def words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def fingerprint(text: str) -> frozenset[str]:
    """The page's word 3-grams: two renderings of one template share nearly all of them."""
    tokens = words(text)
    if len(tokens) < SHINGLE:
        return frozenset([" ".join(tokens)]) if tokens else frozenset()
    return frozenset(" ".join(tokens[i : i + SHINGLE]) for i in range(len(tokens) - SHINGLE + 1))


def similarity(left: frozenset[str], right: frozenset[str]) -> float:
    if not left or not right:
        return 0.0
    return len(left & right) / len(left | right)


@dataclass(frozen=True)
class NotFoundPage:
    """What a host serves at a made-up URL: its text's fingerprint, its first heading and <title>."""

    print: frozenset[str]
    titles: tuple[str, str] = ("", "")


@dataclass(frozen=True)
class Verdict:
    reason: str = ""  # "" when the page is knowledge


def page_judge(
    *,
    text: str,
    title_candidates: tuple[str, ...],
    password_fields: int,
    min_words: int,
    not_found: NotFoundPage | None,
) -> Verdict:
    """Why the page is not knowledge, or Verdict() when it is. `not_found` is what the host serves at a
    made-up URL (None when unknown); `title_candidates` are the page's first heading and <title>. A page
    whose extracted text is that page's text again is a soft 404 when it says so (a not-found title, or
    the not-found page's own heading or <title>), and otherwise a page with nothing of its own (the
    extractor fell back to the site's navigation): an empty shell."""
    count = len(words(text))
    cue = any(_NOT_FOUND.search(title) for title in title_candidates if title)
    if count <= CUE_MAX_WORDS and cue:
        return Verdict(reason="soft_404")
    if password_fields and count <= LOGIN_WALL_MAX_WORDS:
        return Verdict(reason="login_wall")
    if count < min_words:
        return Verdict(reason="empty_shell")
    if not_found and similarity(fingerprint(text), not_found.print) >= SOFT_404_SIMILARITY:
        same_titles = any(
            mine and mine == theirs
            for mine, theirs in zip(title_candidates, not_found.titles, strict=False)
        )
        return Verdict(reason="soft_404" if cue or same_titles else "empty_shell")
    return Verdict()
