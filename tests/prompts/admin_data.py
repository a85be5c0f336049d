"""Builds the POST body of the bot admin's change form, inlines included, for client-level admin tests."""

from __future__ import annotations

from typing import Any

BOT_DEFAULTS: dict[str, Any] = {
    "name": "Lumi",
    "role": "support assistant",
    "domain": "e-bikes",
    "target_audience": "riders",
    "locale": "en",
    "response_expectations": "Short answers.",
    "formality": "friendly",
    "formatting_rules": "",
    "vocabulary_constraints": "",
    "regulatory_constraints": "",
    "forbidden_statements": "",
    "mandatory_mentions": "",
    "specific_instructions": "",
    "escalation_allowed": "on",
    "escalation_triggers": "talk to a human",
    "escalation_unavailable_text": "Nobody is available.",
    "escalation_confidence_threshold": "0.3",
    "rag_strictness": "strict",
    "relaxation_statement": "",
    "refusal_text": "Out of scope.",
    "no_answer_text": "Not found.",
    "injection_refusal_text": "Cannot process.",
    "escalation_text": "Transferring you.",
    "llm_provider": "offline",
    "llm_model": "",
    "llm_temperature": "0",
    "llm_max_output_tokens": "1024",
    "llm_timeout_seconds": "30",
    "retrieval_top_k": "6",
    "answer_locales": "en, fr",
    "answer_max_sentences": "3",
    "retrieval_score_threshold": "0",
    "retrieval_hybrid": "on",
    "injection_threshold": "0.6",
    "injection_watch": "0.3",
}


def bot_form_data(
    *,
    workspace_id: Any,
    topics: list[tuple[str, str]] = (),  # type: ignore[assignment]
    lexicon: list[tuple[str, str]] = (),  # type: ignore[assignment]
    **fields: Any,
) -> dict[str, Any]:
    """A new bot's form: `topics` as (name, kind) pairs, `lexicon` as ("a, b", definition) pairs."""
    data = {**BOT_DEFAULTS, "workspace": str(workspace_id), **fields}
    data = {key: value for key, value in data.items() if value is not None}
    for prefix, rows in (("topics", topics), ("lexicon_groups", lexicon), ("locale_texts", [])):
        data[f"{prefix}-TOTAL_FORMS"] = str(len(rows))
        data[f"{prefix}-INITIAL_FORMS"] = "0"
        for index, row in enumerate(rows):
            if prefix == "topics":
                data[f"{prefix}-{index}-name"], data[f"{prefix}-{index}-kind"] = row
            else:
                data[f"{prefix}-{index}-terms"], data[f"{prefix}-{index}-definition"] = row
    return data
