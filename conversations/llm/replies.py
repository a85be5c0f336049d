"""The answer object the offline provider writes (the contract's JSON, as an LLM would return it), and the
answers that need no model: small talk, an injection refused, a handoff offered (`guarded_answer`)."""

from __future__ import annotations

from collections.abc import Sequence

from conversations.contract.enforce import (
    UNUSED_REASON_STATUS,
    injection_explanation,
)
from conversations.guards import GuardKind, GuardMatch
from conversations.types import (
    HUMAN_ESCALATION_INTENT,
    SMALL_TALK_TOPIC,
    UNKNOWN_TOPIC,
    AnswerStatus,
    BotRules,
)
from rag.retrieval import RetrievedChunk

_SMALL_TALK_REPLIES = {
    ("en", "greeting"): "Hello! How can I help you today?",
    ("en", "thanks"): "You're welcome! Anything else I can help with?",
    ("en", "farewell"): "Goodbye, and have a nice day!",
    ("en", "how_are_you"): "I'm doing well, thank you. How can I help you?",
    ("fr", "greeting"): "Bonjour ! Comment puis-je vous aider ?",
    ("fr", "thanks"): "Avec plaisir ! Puis-je vous aider pour autre chose ?",
    ("fr", "farewell"): "Au revoir et bonne journée !",
    ("fr", "how_are_you"): "Très bien, merci. Comment puis-je vous aider ?",
    ("de", "greeting"): "Hallo! Wie kann ich Ihnen heute helfen?",
    ("de", "thanks"): "Gern geschehen! Kann ich Ihnen noch bei etwas anderem helfen?",
    ("de", "farewell"): "Auf Wiedersehen und einen schönen Tag!",
    ("de", "how_are_you"): "Danke, gut. Wie kann ich Ihnen helfen?",
    ("es", "greeting"): "¡Hola! ¿En qué puedo ayudarle hoy?",
    ("es", "thanks"): "¡De nada! ¿Puedo ayudarle en algo más?",
    ("es", "farewell"): "¡Adiós y que tenga un buen día!",
    ("es", "how_are_you"): "Muy bien, gracias. ¿En qué puedo ayudarle?",
    ("it", "greeting"): "Buongiorno! Come posso aiutarla oggi?",
    ("it", "thanks"): "Prego! Posso aiutarla in qualcos'altro?",
    ("it", "farewell"): "Arrivederci e buona giornata!",
    ("it", "how_are_you"): "Bene, grazie. Come posso aiutarla?",
    ("pt", "greeting"): "Olá! Como posso ajudar hoje?",
    ("pt", "thanks"): "De nada! Posso ajudar em mais alguma coisa?",
    ("pt", "farewell"): "Até logo e tenha um bom dia!",
    ("pt", "how_are_you"): "Estou bem, obrigado. Como posso ajudar?",
}


def guarded_answer(
    *, guard: GuardMatch, question: str, chunks: Sequence[RetrievedChunk], rules: BotRules
) -> dict[str, object]:
    """The contract-abiding answer to a message a cheap guard caught (no model needed)."""
    understanding = " ".join(question.split())
    if guard.kind is GuardKind.SMALL_TALK:
        # The turn's language when there are replies in it, else the greeting's own language.
        language = rules.locale.split("-")[0].lower() or guard.language
        reply = _SMALL_TALK_REPLIES.get(
            (language, guard.label),
            _SMALL_TALK_REPLIES.get(
                (guard.language, guard.label), _SMALL_TALK_REPLIES[("en", "greeting")]
            ),
        )
        return answer_shaped(
            AnswerStatus.SMALL_TALK, reply, 1.0, SMALL_TALK_TOPIC, understanding, []
        )
    unused = chunks_unused(chunks, UNUSED_REASON_STATUS)
    if guard.kind is GuardKind.INJECTION:
        explanation = injection_explanation(
            question=question, detail=f"{guard.label} pattern on {guard.excerpt!r}."
        )
        return answer_shaped(
            AnswerStatus.INJECTION_ATTEMPT,
            rules.refusal_text,
            0.0,
            UNKNOWN_TOPIC,
            explanation,
            unused,
        )
    if rules.declares_intent(HUMAN_ESCALATION_INTENT):
        return answer_shaped(
            AnswerStatus.HUMAN_ESCALATION,
            rules.handoff_text,
            0.0,
            UNKNOWN_TOPIC,
            understanding,
            unused,
            intent=HUMAN_ESCALATION_INTENT,
        )
    return answer_shaped(
        AnswerStatus.HUMAN_ESCALATION,
        rules.handoff_unavailable_text,
        0.0,
        UNKNOWN_TOPIC,
        understanding,
        unused,
    )


def answer_shaped(
    status: AnswerStatus,
    text: str,
    confidence: float,
    topic: str,
    understanding: str,
    usage: list[dict[str, object]],
    *,
    intent: str | None = None,
) -> dict[str, object]:
    """The contract's answer object, every field present."""
    return {
        "status": status.value,
        "answer": text,
        "display_answer": True,
        "confidence_score": round(confidence, 4),
        "topic": topic,
        "suggested_topics": [],
        "understanding": understanding,
        "redirection_intent": intent,
        "context_usage": usage,
    }


def chunk_unused(chunk_id: str, reason: str) -> dict[str, object]:
    """A context_usage entry for a chunk the answer does not use, and why."""
    return {"chunk": chunk_id, "sentences": [], "used_in_response": False, "reason": reason}


def chunks_unused(chunks: Sequence[RetrievedChunk], reason: str) -> list[dict[str, object]]:
    return [chunk_unused(chunk.id, reason) for chunk in chunks]
