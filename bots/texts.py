"""Parley's own user-facing texts in the six languages the widget speaks, for a visitor whose language
the bot has no texts of its own for (prompts.engine.BotSettings.texts): a French question to a bot
written in English gets "not found" in French, not the bot's English sentence.

The keys are BotTexts' fields. A bot's own texts, in its default locale or a localized-text row, always
come first.
"""

from __future__ import annotations

BUILT_IN_TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "refusal": "Sorry, that question is outside what I can help with.",
        "no_answer": "Sorry, I could not find that information in my documents.",
        "injection_refusal": "Sorry, I cannot process this request.",
        "escalation": "I am transferring you to a member of our team.",
        "escalation_unavailable": (
            "I cannot transfer you to a person here, but I am happy to keep helping."
        ),
    },
    "fr": {
        "refusal": "Désolé, cette question sort de ce sur quoi je peux vous aider.",
        "no_answer": "Désolé, je n'ai pas trouvé cette information dans mes documents.",
        "injection_refusal": "Désolé, je ne peux pas traiter cette demande.",
        "escalation": "Je vous mets en relation avec un membre de notre équipe.",
        "escalation_unavailable": (
            "Je ne peux pas vous mettre en relation avec une personne ici, mais je continue "
            "volontiers à vous aider."
        ),
    },
    "de": {
        "refusal": "Entschuldigung, bei dieser Frage kann ich Ihnen leider nicht helfen.",
        "no_answer": "Entschuldigung, diese Information habe ich in meinen Dokumenten nicht gefunden.",
        "injection_refusal": "Entschuldigung, diese Anfrage kann ich nicht bearbeiten.",
        "escalation": "Ich verbinde Sie mit einem Mitglied unseres Teams.",
        "escalation_unavailable": (
            "Ich kann Sie hier nicht mit einer Person verbinden, helfe Ihnen aber gern weiter."
        ),
    },
    "es": {
        "refusal": "Lo siento, esa pregunta está fuera de lo que puedo responder.",
        "no_answer": "Lo siento, no he encontrado esa información en mis documentos.",
        "injection_refusal": "Lo siento, no puedo procesar esta solicitud.",
        "escalation": "Le paso con un miembro de nuestro equipo.",
        "escalation_unavailable": (
            "No puedo pasarle con una persona aquí, pero sigo encantado de ayudarle."
        ),
    },
    "it": {
        "refusal": "Mi dispiace, questa domanda va oltre ciò in cui posso aiutarla.",
        "no_answer": "Mi dispiace, non ho trovato questa informazione nei miei documenti.",
        "injection_refusal": "Mi dispiace, non posso elaborare questa richiesta.",
        "escalation": "La metto in contatto con un membro del nostro team.",
        "escalation_unavailable": (
            "Qui non posso metterla in contatto con una persona, ma continuo volentieri ad aiutarla."
        ),
    },
    "pt": {
        "refusal": "Desculpe, essa pergunta está fora do que posso ajudar.",
        "no_answer": "Desculpe, não encontrei essa informação nos meus documentos.",
        "injection_refusal": "Desculpe, não posso processar este pedido.",
        "escalation": "Vou transferi-lo para um membro da nossa equipa.",
        "escalation_unavailable": (
            "Não posso transferi-lo para uma pessoa aqui, mas continuo a ajudar com todo o gosto."
        ),
    },
}
