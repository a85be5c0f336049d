"""The slots every language's lexicon fills (see guard.lexicon for what each holds)."""

from __future__ import annotations

from typing import TypedDict


class Lexicon(TypedDict):
    override_verbs: str
    override_objects: str
    override_weak: str
    disobey: str
    ask_prompt: str
    extract_verbs: str
    extract_objects: str
    persona: str
    persona_weak: str
    policy_nouns: str
    policy_off: str
    new_orders: str
    context_objects: str
    own_knowledge: str
    persona_more: str
    extract_more: str
    void_subject: str
    void_state: str
    status_words: str
    persona_unbound: str
