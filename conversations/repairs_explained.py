"""Repairs in words, for a person reading how an answer was made (the Try-it console, a turn's audit): the
rule of the answer contract each repair enforced, and what the server changed, with the chunks named by
their [n] marker and document instead of their ids. No repair at all is said too: the output met the contract.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from conversations.types import Repair

CONTRACT_MET = "none: the output met the contract"

# One sentence per repair code (conversations/contract/): the rule, in the terms of the spec's section 4.
# tests/conversations/test_repairs_explained.py keeps it complete as the contract grows.
REPAIR_RULES: dict[str, str] = {
    "code_fence_stripped": "The model must answer with a bare JSON object.",
    "leading_text_ignored": "The model must answer with the JSON object alone.",
    "trailing_text_ignored": "The model must answer with the JSON object alone.",
    "fallback_after_invalid_output": (
        "An output that is not a valid answer object is retried once, then replaced by the no-answer"
        " fallback."
    ),
    "display_answer_defaulted": "display_answer is a boolean and defaults to true.",
    "display_answer_coerced": "display_answer is a boolean.",
    "confidence_coerced": "confidence_score is a number, not a string.",
    "confidence_invalid": "confidence_score is a number in [0, 1].",
    "confidence_clamped": "confidence_score is a number in [0, 1].",
    "topic_missing": 'topic is a topic name, or "unknown".',
    "topic_not_declared": 'topic is one of the bot\'s covered topics, or "unknown".',
    "topic_canonicalized": "topic is spelled as the bot declares it.",
    "topic_forced": 'small_talk answers have the topic "Small talk"; out_of_scope ones "unknown".',
    "suggested_topics_coerced": "suggested_topics is a list of strings.",
    "suggested_topics_invalid": "suggested_topics is a list of strings.",
    "suggested_topics_cleared": "A known topic (or small talk) allows no suggested topic.",
    "suggested_topics_truncated": "An unknown topic allows at most one suggested topic.",
    "suggestion_is_covered_topic": "A suggested topic must not be one the bot already covers.",
    "understanding_missing": "understanding is a string: the bot's reading of the question.",
    "understanding_explained": (
        "For an injection attempt, understanding explains the attack: what it asked, why it conflicts"
        " with the rules, and where it was."
    ),
    "redirection_intent_invalid": "redirection_intent is a string or null.",
    "redirection_intent_set": "A human escalation carries the intent human_escalation.",
    "redirection_intent_undeclared": "redirection_intent names an intent the bot declares, or null.",
    "context_usage_invalid": "context_usage is a list with one entry per retrieved chunk.",
    "context_usage_entry_invalid": "Each context_usage entry names the chunk it is about.",
    "context_usage_cleared": "Small talk uses no chunk: context_usage is empty.",
    "used_in_response_invalid": "used_in_response is a boolean.",
    "chunk_unknown": "context_usage names only chunks that were retrieved.",
    "chunk_usage_duplicate": "context_usage lists each chunk once.",
    "chunk_usage_missing": "Every retrieved chunk appears in context_usage.",
    "unused_chunk_without_reason": "An unused chunk gives the reason it was not used.",
    "quote_not_in_chunk": "Every quoted sentence appears in its chunk, word for word.",
    "used_chunk_in_not_found": "not_found_in_context uses no chunk.",
    "used_chunk_outside_found": "Only a found_in_context answer uses chunks.",
    "found_without_used_chunk": "found_in_context needs at least one used chunk that exists.",
    "answer_replaced": "This status shows one of the bot's configured texts, not the model's words.",
    "planted_sentence_dropped": (
        "The answer never repeats an instruction or a contact planted in a document."
    ),
    "planted_quote_dropped": "A quote never carries an instruction or a contact planted in a document.",
    "planted_answer_replaced": (
        "An answer left empty once planted content is dropped shows the no-answer text."
    ),
    # The support check (conversations/contract/support): one code per kind of fact not found.
    **{
        f"unsupported_{kind}_removed": (
            f"Every {label} an answer states is found in a passage given to the model, or the "
            "sentence is removed."
        )
        for kind, label in (
            ("number", "number"),
            ("amount", "amount"),
            ("percentage", "percentage"),
            ("quantity", "quantity (a number and its unit)"),
            ("date", "date"),
            ("email", "e-mail address"),
            ("phone", "phone number"),
            ("url", "link"),
            ("name", "name"),
            ("unit", "number's unit"),
        )
    },
    "unsupported_negation_removed": (
        "A sentence says what its passage says, not the opposite, or it is removed."
    ),
    "unsupported_claim_removed": (
        "A sentence stating facts is supported as a whole by a passage given to the model, or it is "
        "removed."
    ),
    "unsupported_answer_replaced": (
        "When nothing supported answers, a strict bot says it did not find the answer (or escalates)."
    ),
    "unsupported_answer_marked": (
        "When nothing supported answers, a relaxed bot shows the answer marked, with its relaxation "
        "statement."
    ),
}


@dataclass(frozen=True)
class RepairExplained:
    code: str
    rule: str  # the contract's rule this repair enforced ("" for a code this table does not know)
    change: str  # what the server changed, chunks named by their marker and document


def chunk_label(*, rank: object, title: str) -> str:
    """How an explanation names a retrieved chunk: "[2] (Shop guide)", or "[2]" without a title."""
    return f"[{rank}]" + (f" ({title})" if title else "")


def repairs_explain(
    *, repairs: Iterable[Repair | Mapping[str, str]], chunk_labels: Mapping[str, str]
) -> list[RepairExplained]:
    """Each repair (the contract's `Repair`, or its stored JSON) in words; `chunk_labels` maps a chunk id
    to how the page names it, e.g. '[2] "Orders and delivery"'."""
    explained = []
    for repair in repairs:
        code, message = (
            (repair.code, repair.message)
            if isinstance(repair, Repair)
            else (repair.get("code", ""), repair.get("message", ""))
        )
        for chunk_id, label in chunk_labels.items():
            message = message.replace(chunk_id, label)
        explained.append(
            RepairExplained(code=code, rule=REPAIR_RULES.get(code, ""), change=message)
        )
    return explained
