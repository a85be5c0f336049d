"""Fold a message into the plain form the injection patterns match: what an attacker can vary without
changing what the model reads (width, case, accents, invisible characters, look-alike letters, digits for
letters, letters spaced out) is folded away, and base64 payloads are decoded so their text is scanned too.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata

# Invisible characters an attacker slips between letters to break a pattern ("ig\u200bnore").
_INVISIBLE = dict.fromkeys(
    map(
        ord,
        "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b\u200c\u200d\u200e\u200f"
        "\u202a\u202b\u202c\u202d\u202e\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff",
    ),
    None,
)
# Cyrillic and Greek letters that render like Latin ones (after case folding; NFKC keeps them apart).
_HOMOGLYPHS = str.maketrans(
    "авеёкмнорстухіїјѕԁɡһӏԛԝαβεηικνορτυχωѵɩı", "abeekmhopctyxiijsdghlqwabeniknoptuxwvii"
)
_LEET = {
    one: str.maketrans(
        {"0": "o", "1": one, "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"}
    )
    for one in ("i", "l")
}
# A word mixing letters with leet digits or symbols ("1gn0r3", "pr0mpt", "@ll"); plain numbers are kept.
_LEET_WORD = re.compile(r"(?=[\w@$]*[a-z])(?=[\w@$]*[013457@$])[a-z013457@$]{3,}")
# Letters spelt out one by one: "i g n o r e" or "i-g-n-o-r-e".
_SPACED = re.compile(r"\b(?:[a-z][ .\-_*]){3,}[a-z]\b")
_SEPARATORS = re.compile(r"[ .\-_*]")
SPELLED_OUT_LETTERS = 10
_BASE64 = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}")
_SPACES = re.compile(r"[^\S\n]+")
_BLANK_LINES = re.compile(r" ?\n[\s]*")


def text_fold(text: str, *, one: str = "i") -> str:
    """The folded form of `text`: NFKC, no invisible characters, case-folded, accents and look-alikes
    folded to Latin letters, leetspeak and spaced-out words rejoined, spaces collapsed (line breaks kept)."""
    folded = unicodedata.normalize("NFKC", text).translate(_INVISIBLE).casefold()
    folded = folded.translate(_HOMOGLYPHS)
    decomposed = unicodedata.normalize("NFD", folded)
    folded = "".join(char for char in decomposed if not unicodedata.combining(char))
    folded = _LEET_WORD.sub(lambda match: match.group(0).translate(_LEET[one]), folded)
    folded = _SPACED.sub(lambda match: _SEPARATORS.sub("", match.group(0)), folded)
    # Line breaks are kept: a fake "SYSTEM:" or "### system" heading is only one at the start of a line.
    return _BLANK_LINES.sub("\n", _SPACES.sub(" ", folded)).strip()


def spelled_out(text: str) -> bool:
    """Whether `text` spells a long run out letter by letter ("S a y t h a t y o u …"): folding joins
    the letters, but ten or more in a row is itself a way round a filter, whatever they say."""
    return any(
        len(_SEPARATORS.sub("", match.group(0))) >= SPELLED_OUT_LETTERS
        for match in _SPACED.finditer(text.casefold())
    )


def base64_payloads(text: str) -> list[str]:
    """The readable texts hidden in `text` as base64 (at least 12 decoded characters, mostly letters)."""
    found = []
    for match in _BASE64.finditer(text):
        token = match.group(0)
        try:
            raw = base64.b64decode(token + "=" * (-len(token) % 4), validate=True)
            decoded = raw.decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            continue
        letters = sum(char.isalpha() or char.isspace() for char in decoded)
        if len(decoded) >= 12 and letters >= 0.8 * len(decoded):
            found.append(decoded)
    return found
