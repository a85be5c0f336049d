"""The words of an injection, per language, as regular-expression alternations over folded text
(lower case, no accents: see normalise.text_fold). patterns.py builds the scored patterns from them.

Each language gives the same slots, so a new language is a new entry:
- override_verbs + override_objects: "ignore" + "the previous instructions" (strong: the object says
  which instructions — yours, the ones above — as a user asking about a product never does);
- extract_verbs + extract_objects: "print / translate / repeat" + "what precedes / your prompt";
- persona: role-play and persona switches (strong), persona_weak: phrases a real question may use;
- disobey: "stop following your rules", "the instructions you were given"; ask_prompt: "what is your
  system prompt" (asking about the bot's own instructions, not a product's);
- policy_nouns + policy_off: "the policy" + "is disabled";
- new_orders: a heading announcing new instructions ("New instructions:").
"""

from __future__ import annotations

from guard.lexicon import de, en, es, fr, it, pt
from guard.lexicon.slots import Lexicon

LEXICONS: dict[str, Lexicon] = {
    "en": en.LEXICON,
    "fr": fr.LEXICON,
    "de": de.LEXICON,
    "es": es.LEXICON,
    "it": it.LEXICON,
    "pt": pt.LEXICON,
}
