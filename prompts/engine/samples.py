"""Realistic sample data: what templates are validated against, and what the preview starts from."""

from __future__ import annotations

from prompts.engine.data import (
    BotSettings,
    BotTexts,
    BusinessRules,
    Chunk,
    EscalationSettings,
    HistoryTurn,
    LexiconEntry,
)

SAMPLE_QUESTION = "How long does it take to charge it fully?"

SAMPLE_HISTORY = (
    HistoryTurn(role="user", content="I just bought the Lumen City 2 e-bike."),
    HistoryTurn(role="assistant", content="Congratulations on your new bike! How can I help?"),
)

SAMPLE_CHUNKS = (
    Chunk(
        id="chunk-battery-1",
        title="Battery care guide",
        source="battery-care.md",
        page=2,
        text="A full charge of the 500 Wh battery takes about 4.5 hours with the standard 4 A charger.",
    ),
    Chunk(
        id="chunk-warranty-3",
        title="Warranty terms",
        source="warranty.pdf",
        page=1,
        text="The battery is covered for two years or 800 full charge cycles, whichever comes first.",
    ),
)


def sample_bot_settings(*, strictness: str = "strict", explainability: bool = True) -> BotSettings:
    """A fully filled bot, used to validate templates and in tests; no database involved."""
    texts = BotTexts(
        refusal="Sorry, I can only help with questions about Lumen Bikes.",
        no_answer="Sorry, I could not find that in our documentation.",
        injection_refusal="Sorry, I cannot process this request.",
        escalation="I am transferring you to a member of our support team.",
        escalation_unavailable="I cannot transfer you to a person here, but I am happy to keep helping.",
    )
    return BotSettings(
        bot_id="00000000-0000-0000-0000-000000000001",
        workspace_id="00000000-0000-0000-0000-000000000002",
        rules=BusinessRules(
            name="Lumi",
            role="customer support assistant",
            domain="Lumen Bikes e-bikes: orders, delivery, warranty, battery and returns",
            target_audience="Lumen Bikes customers and prospective buyers",
            locale="en",
            response_expectations="Short, practical answers a non-technical rider can follow.",
            formality="friendly",
            formatting_rules="Use short paragraphs; use a numbered list for procedures.",
            vocabulary_constraints="Say “e-bike”, never “electric moped”.",
            regulatory_constraints="Never give legal advice about road traffic rules.",
            forbidden_statements="Never promise a delivery date or a refund amount.",
            mandatory_mentions="For battery safety issues, tell the user to stop riding and contact support.",
            specific_instructions="If the bike model is unclear, ask which model the user owns.",
        ),
        rag_strictness="relaxed" if strictness == "relaxed" else "strict",
        relaxation_statement=(
            "General cycling know-how (tyre pressure, chain care, riding technique) may come from general knowledge."
            if strictness == "relaxed"
            else ""
        ),
        explainability=explainability,
        covered_topics=(
            "Battery & charging",
            "Orders & delivery",
            "Returns & refunds",
            "Small talk",
        ),
        excluded_topics=("Competitor products", "Medical advice"),
        lexicon=(
            LexiconEntry(
                terms=("e-bike", "electric bike", "pedelec"), definition="A pedal-assisted bicycle."
            ),
            LexiconEntry(terms=("battery", "pack", "accu")),
        ),
        escalation=EscalationSettings(
            allowed=True, triggers=("talk to a human", "agent"), confidence_threshold=0.3
        ),
        texts_by_locale={"en": texts},
    )
