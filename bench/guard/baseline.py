"""The baseline: a verbatim copy of the regular expressions conversations/guards.py used for injections
before the scored detector (issue 18), so bench/guard can print old and new side by side.
"""

from __future__ import annotations

import re

_I = re.IGNORECASE
_INJECTION: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    (
        "override_instructions",
        "en",
        re.compile(
            r"\b(ignore|disregard|forget|override|bypass)\b[^.?!]{0,40}\b(instructions?|rules|prompts?|guidelines|"
            r"directives|polic(y|ies))\b",
            _I,
        ),
    ),
    (
        "reveal_prompt",
        "en",
        re.compile(
            r"\b(reveal|show|print|repeat|display|leak|tell me)\b[^.?!]{0,30}"
            r"\b(system prompt|hidden (instructions|prompt)"
            r"|your (initial |original |system )?(prompt|instructions)"
            r"|the (initial|original|system) (prompt|instructions))\b",
            _I,
        ),
    ),
    (
        "role_override",
        "en",
        re.compile(
            r"\b(you are now|from now on,? you|act as (an? )?(unrestricted|unfiltered|jailbroken)|developer mode|"
            r"jailbreak|do anything now)\b",
            _I,
        ),
    ),
    (
        "override_instructions",
        "fr",
        re.compile(
            r"\b(ignore[rsz]?|oublie[rsz]?|contourne[rsz]?)\b[^.?!]{0,40}\b(instructions?|consignes?|r[eè]gles|"
            r"directives|prompts?)\b",
            _I,
        ),
    ),
    (
        "reveal_prompt",
        "fr",
        re.compile(
            r"\b(r[ée]v[èe]le[rsz]?|affiche[rsz]?|montre[rsz]?|r[ée]p[èe]te[rsz]?|donne[rsz]?)(-moi)?\b[^.?!]{0,30}"
            r"\b(prompt( syst[èe]me)?|instructions (cach[ée]es|syst[èe]me|initiales))\b",
            _I,
        ),
    ),
    (
        "role_override",
        "fr",
        re.compile(
            r"(\btu es d[ée]sormais\b|\bà partir de maintenant,? tu\b|\bmode d[ée]veloppeur\b)", _I
        ),
    ),
)


def baseline_flags(text: str) -> bool:
    """Whether the old guard flagged `text` (any pattern matching, as message_screen did)."""
    return any(pattern.search(text) for _label, _language, pattern in _INJECTION)
