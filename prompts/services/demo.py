"""The demo: a "Lumen Bikes" workspace with a fully configured support bot for a fictional e-bike brand.

All content here is written for Parley. It is created once; an admin's later edits are kept.
"""

from __future__ import annotations

from django.db import transaction

from bots.models import Bot, BotLocaleText
from core.models import Workspace
from prompt_context.models import SMALL_TALK, LexiconGroup, Topic

DEMO_WORKSPACE = "Lumen Bikes"
DEMO_WORKSPACE_SLUG = "lumen-bikes"
DEMO_BOT = "Lumi"

COVERED = (
    "Orders & delivery",
    "Warranty & repairs",
    "Battery & charging",
    "Returns & refunds",
    SMALL_TALK,
)
EXCLUDED = ("Other brands' bikes", "Medical or fitness advice", "Road traffic law")
LEXICON = (
    (
        ["e-bike", "electric bike", "pedelec", "bike"],
        "A Lumen Bikes bicycle with pedal-assist motor.",
    ),
    (
        ["battery", "pack", "accu", "power pack"],
        "The removable lithium-ion battery of a Lumen bike.",
    ),
    (["charger", "power adapter", "charging brick"], ""),
    (
        ["order", "purchase", "order number"],
        "A purchase made on the Lumen Bikes web shop or in a partner shop.",
    ),
    (["return", "send back", "withdrawal"], "Sending a product back within the return period."),
    (["refund", "money back", "reimbursement"], ""),
    (["repair", "service", "fix", "workshop"], "Work done by a Lumen service partner."),
    (
        ["display", "screen", "head unit"],
        "The handlebar screen that shows speed, assist level and battery charge.",
    ),
)

BOT_FIELDS = {
    "role": "customer support assistant of Lumen Bikes",
    "domain": "Lumen Bikes e-bikes: orders, delivery, warranty, repairs, batteries, returns and refunds",
    "target_audience": "Lumen Bikes customers and people thinking of buying a Lumen e-bike",
    "locale": "en",
    "answer_locales": "en fr de es it pt",
    "answer_max_sentences": 3,
    "response_expectations": (
        "Give short, practical answers that a rider without technical knowledge can follow. "
        "Give steps in order when the user has something to do. Avoid jargon; explain a technical term when used."
    ),
    "formality": Bot.Formality.FRIENDLY,
    "formatting_rules": (
        "Keep answers under 120 words. Use a numbered list for procedures and plain sentences otherwise. "
        "No tables, no headings."
    ),
    "vocabulary_constraints": (
        "Say “e-bike”, not “electric moped” or “scooter”. Call the battery “battery”. "
        "Refer to the company as “Lumen Bikes”."
    ),
    "regulatory_constraints": (
        "Do not give legal advice about road traffic rules or insurance; point to local authorities instead."
    ),
    "forbidden_statements": (
        "Never promise a delivery date, a refund amount or that a repair will be free. "
        "Never suggest opening the battery or modifying the motor's speed limit."
    ),
    "mandatory_mentions": (
        "For a damaged, swollen, hot or smoking battery: tell the user to stop using it, keep it away from "
        "anything flammable and contact Lumen Bikes support."
    ),
    "specific_instructions": (
        "When the answer depends on the bike model and the user has not said which one they own, ask which "
        "Lumen model it is before answering. An order number looks like LB- followed by six digits; never "
        "claim to look an order up."
    ),
    "escalation_allowed": True,
    "escalation_triggers": "talk to a human\nspeak to an agent\nreal person\ncustomer service",
    "escalation_text": "Of course, I am handing you over to a member of the Lumen Bikes support team.",
    "escalation_unavailable_text": "Our team cannot join this chat right now, but I am happy to keep helping.",
    "escalation_confidence_threshold": 0.5,  # a probability (rag.relevance), near the fitted default
    "rag_strictness": Bot.Strictness.STRICT,
    "explainability": True,
    "refusal_text": "Sorry, I can only help with Lumen Bikes orders, warranty, batteries and returns.",
    "no_answer_text": "Sorry, I could not find that in the Lumen Bikes documentation.",
    "injection_refusal_text": "Sorry, I cannot process this request.",
    "llm_provider": Bot.Provider.OFFLINE,
    "retrieval_top_k": 6,
    "retrieval_score_threshold": 0.2,
    "retrieval_hybrid": True,
}

FRENCH_TEXTS = {
    "refusal_text": "Désolé, je ne peux vous aider que pour les commandes, la garantie, les batteries et les retours "
    "Lumen Bikes.",
    "no_answer_text": "Désolé, je n'ai pas trouvé cette information dans la documentation Lumen Bikes.",
    "injection_refusal_text": "Désolé, je ne peux pas traiter cette demande.",
    "escalation_text": "Bien sûr, je vous mets en relation avec un membre de l'équipe d'assistance Lumen Bikes.",
    "escalation_unavailable_text": "Notre équipe ne peut pas rejoindre cette conversation pour le moment, mais je "
    "reste à votre disposition.",
}
GERMAN_TEXTS = {
    "refusal_text": "Entschuldigung, ich kann Ihnen nur bei Bestellungen, Garantie, Akkus und Rücksendungen "
    "von Lumen Bikes helfen.",
    "no_answer_text": "Entschuldigung, diese Information habe ich in der Dokumentation von Lumen Bikes nicht "
    "gefunden.",
    "injection_refusal_text": "Entschuldigung, diese Anfrage kann ich nicht bearbeiten.",
    "escalation_text": "Gern, ich verbinde Sie mit einem Mitglied des Lumen-Bikes-Supportteams.",
    "escalation_unavailable_text": "Unser Team kann dieses Gespräch gerade nicht übernehmen, aber ich helfe "
    "Ihnen gern weiter.",
}
SPANISH_TEXTS = {
    "refusal_text": "Lo siento, solo puedo ayudarle con pedidos, garantía, baterías y devoluciones de Lumen "
    "Bikes.",
    "no_answer_text": "Lo siento, no he encontrado esa información en la documentación de Lumen Bikes.",
    "injection_refusal_text": "Lo siento, no puedo procesar esta solicitud.",
    "escalation_text": "Por supuesto, le pongo en contacto con un miembro del equipo de asistencia de Lumen Bikes.",
    "escalation_unavailable_text": "Nuestro equipo no puede unirse a esta conversación en este momento, pero "
    "sigo a su disposición.",
}
# The demo bot's texts in each language besides its default (English). It also answers in Italian and
# Portuguese (small talk, an LLM's answer), with its English texts there.
LOCALE_TEXTS = {"fr": FRENCH_TEXTS, "de": GERMAN_TEXTS, "es": SPANISH_TEXTS}


def demo_bot_ensure(*, workspace_slug: str = DEMO_WORKSPACE_SLUG) -> Bot:
    """Create the demo workspace and bot with its topics and lexicon when missing; return the bot."""
    with transaction.atomic():
        workspace, _ = Workspace.objects.get_or_create(
            slug=workspace_slug, defaults={"name": DEMO_WORKSPACE}
        )
        bot, created = Bot.objects.get_or_create(
            workspace=workspace, name=DEMO_BOT, defaults=BOT_FIELDS
        )
        if not created:
            _locale_texts_complete(bot)
        else:
            BotLocaleText.objects.bulk_create(
                BotLocaleText(bot=bot, locale=locale, **texts)
                for locale, texts in LOCALE_TEXTS.items()
            )
            Topic.objects.bulk_create(
                [Topic(bot=bot, name=name, kind=Topic.Kind.COVERED) for name in COVERED]
                + [Topic(bot=bot, name=name, kind=Topic.Kind.EXCLUDED) for name in EXCLUDED]
            )
            LexiconGroup.objects.bulk_create(
                LexiconGroup(bot=bot, terms=terms, definition=definition)
                for terms, definition in LEXICON
            )
    return bot


def _locale_texts_complete(bot: Bot) -> None:
    """Fill the texts of each locale a demo made before they existed (a missing locale, and empty texts
    only: an admin's words stay)."""
    # A demo made when it answered in English and French only, its list untouched since, gets the others.
    Bot.objects.filter(pk=bot.pk, answer_locales="en fr").update(
        answer_locales=BOT_FIELDS["answer_locales"]
    )
    for locale, texts in LOCALE_TEXTS.items():
        BotLocaleText.objects.get_or_create(bot=bot, locale=locale, defaults=texts)
        for name, text in texts.items():
            BotLocaleText.objects.filter(bot=bot, locale=locale, **{name: ""}).update(
                **{name: text}
            )
