"""What a platform's visitor reads when the conversation's owner moves (the widget shows the same as
status lines), and when an attachment is taken or ignored; in the bot's language, English otherwise."""

from __future__ import annotations

NOTICES: dict[str, dict[str, str]] = {
    "en": {
        "waiting": "Waiting for an agent…",
        "joined": "{name} joined the conversation.",
        "back_to_bot": "You are chatting with the assistant again.",
        "resolved": "The agent closed this conversation. Write again any time.",
        "attachment_taken": "I have added {names} to our conversation.",
        "attachment_ignored": "I cannot read attachments here ({names}): please write your question.",
        "sources": "Sources",
        "page": "p.",
    },
    "fr": {
        "waiting": "En attente d'un conseiller…",
        "joined": "{name} a rejoint la conversation.",
        "back_to_bot": "Vous discutez de nouveau avec l'assistant.",
        "resolved": "Le conseiller a clos cette conversation. Écrivez-nous quand vous voulez.",
        "attachment_taken": "J'ai ajouté {names} à notre conversation.",
        "attachment_ignored": "Je ne peux pas lire les pièces jointes ici ({names}) : écrivez votre question.",
        "sources": "Sources",
        "page": "p.",
    },
}


def notice(key: str, *, locale: str, **values: str) -> str:
    texts = NOTICES.get(locale.split("-")[0].lower(), NOTICES["en"])
    return texts[key].format(**values)
