"""The answers the scripted model returns, in the answer contract's JSON (conversations.contract)."""

from __future__ import annotations


def found_answer(chunk_id: str, *, answer: str, sentence: str) -> dict[str, object]:
    """An answer found in one chunk, quoting one of its sentences."""
    return {
        "status": "found_in_context",
        "answer": answer,
        "display_answer": True,
        "confidence_score": 0.9,
        "topic": "Battery & charging",
        "suggested_topics": [],
        "understanding": "A battery question.",
        "redirection_intent": None,
        "context_usage": [{"chunk": chunk_id, "sentences": [sentence], "used_in_response": True}],
    }
