"""The Bot row: identity, scope-independent business rules, strictness, texts, LLM and retrieval settings.

Lengths are VARCHAR limits so PostgreSQL enforces them too; ranges are check constraints.
Covered/excluded topics and the lexicon live in prompt_context (the Rag prompt context).
"""

from __future__ import annotations

import uuid

from django.db import models
from django.db.models import F, Q

from core.models import Workspace

SHORT = 200
MEDIUM = 1000
LONG = 4000
# guard.detector.DEFAULT_THRESHOLD: where bench/guard measured few false positives and most attacks caught.
INJECTION_THRESHOLD_DEFAULT = 0.6
# guard.detector.DEFAULT_WATCH: training maps the watch band's cut, picked on public benign prompts, onto it.
INJECTION_WATCH_DEFAULT = 0.3


class Bot(models.Model):
    class Formality(models.TextChoices):
        FORMAL = "formal", "Formal"
        NEUTRAL = "neutral", "Neutral"
        FRIENDLY = "friendly", "Friendly"

    class Strictness(models.TextChoices):
        STRICT = "strict", "Strict: answers only from retrieved documents"
        RELAXED = (
            "relaxed",
            "Relaxed: general knowledge allowed where the relaxation statement says",
        )

    class Provider(models.TextChoices):
        OPENAI = "openai", "OpenAI-compatible endpoint"
        OFFLINE = "offline", "Offline (embedded, deterministic)"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="bots")

    # 2.1 identity
    name = models.CharField(max_length=120)
    role = models.CharField(
        max_length=SHORT, blank=True, help_text="e.g. “customer support assistant”."
    )
    domain = models.CharField(
        max_length=SHORT, blank=True, help_text="e.g. “e-bike sales and after-sales”."
    )
    target_audience = models.CharField(
        max_length=SHORT, blank=True, help_text="Who talks to this bot."
    )
    locale = models.CharField(
        max_length=10,
        default="en",
        help_text="Default response language, as a code such as en, fr or pt-BR.",
    )
    # 2.3 response expectations
    response_expectations = models.CharField(
        max_length=MEDIUM, blank=True, help_text="Depth and technicality."
    )
    # 2.4 style and tone
    formality = models.CharField(
        max_length=10, choices=Formality.choices, default=Formality.NEUTRAL
    )
    formatting_rules = models.CharField(max_length=MEDIUM, blank=True)
    vocabulary_constraints = models.CharField(max_length=MEDIUM, blank=True)
    # 2.5 domain constraints
    regulatory_constraints = models.CharField(max_length=MEDIUM, blank=True)
    forbidden_statements = models.CharField(max_length=MEDIUM, blank=True)
    mandatory_mentions = models.CharField(max_length=MEDIUM, blank=True)
    # 2.6 specific instructions and human escalation
    specific_instructions = models.CharField(max_length=LONG, blank=True)
    escalation_allowed = models.BooleanField(
        default=False, help_text="May the bot hand the conversation to a human?"
    )
    escalation_triggers = models.CharField(
        max_length=MEDIUM, blank=True, help_text="Phrases that ask for a human, one per line."
    )
    escalation_unavailable_text = models.CharField(
        max_length=MEDIUM,
        blank=True,
        default="I cannot transfer you to a person here, but I am happy to keep helping.",
        help_text="Shown when a user asks for a human and handoff is not allowed.",
    )
    escalation_confidence_threshold = models.FloatField(
        default=0.0, help_text="Escalate when the answer's confidence is below this (0 disables)."
    )
    # Section 1.2 strictness and explainability
    rag_strictness = models.CharField(
        max_length=10, choices=Strictness.choices, default=Strictness.STRICT
    )
    relaxation_statement = models.CharField(
        max_length=MEDIUM,
        blank=True,
        help_text="Required when relaxed: where general knowledge is allowed.",
    )
    explainability = models.BooleanField(default=False)
    # User-facing texts (refusal and no-answer also per locale: BotLocaleText)
    refusal_text = models.CharField(
        max_length=MEDIUM, default="Sorry, that question is outside what I can help with."
    )
    no_answer_text = models.CharField(
        max_length=MEDIUM, default="Sorry, I could not find that information in my documents."
    )
    injection_refusal_text = models.CharField(
        max_length=MEDIUM, default="Sorry, I cannot process this request."
    )
    escalation_text = models.CharField(
        max_length=MEDIUM, default="I am transferring you to a member of our team."
    )
    # Answers: the languages a turn may answer in, and the offline provider's answer length
    answer_locales = models.CharField(
        max_length=SHORT,
        blank=True,
        help_text="Locales the bot may answer in, separated by spaces or commas (e.g. “en fr”): a "
        "question in one of them is answered in it, any other in the default locale. Empty: the "
        "default locale, every locale that has its own texts below, and the six languages Parley has "
        "texts in (English, French, German, Spanish, Italian, Portuguese).",
    )
    answer_max_sentences = models.PositiveSmallIntegerField(
        default=3,
        help_text="At most this many sentences (or table rows) in an offline answer.",
    )
    # LLM
    llm_provider = models.CharField(
        max_length=20, choices=Provider.choices, default=Provider.OFFLINE
    )
    llm_model = models.CharField(
        max_length=SHORT, blank=True, help_text="Model name at the provider."
    )
    llm_temperature = models.FloatField(default=0.0)
    llm_max_output_tokens = models.PositiveIntegerField(default=1024)
    llm_timeout_seconds = models.PositiveIntegerField(default=30)
    # Retrieval
    retrieval_top_k = models.PositiveIntegerField(default=6)
    retrieval_score_threshold = models.FloatField(default=0.0)
    retrieval_hybrid = models.BooleanField(default=True)
    # Security
    injection_threshold = models.FloatField(
        default=INJECTION_THRESHOLD_DEFAULT,
        help_text="Messages the injection detector scores at or above this (0.1-1) are refused as "
        "injection attempts. Lower catches more attacks and refuses more real questions.",
    )
    injection_watch = models.FloatField(
        default=INJECTION_WATCH_DEFAULT,
        help_text="Messages scoring from this up to the injection threshold are answered normally "
        "(as untrusted data, like every message) but recorded as security events to review. "
        "Set it equal to the threshold to record nothing below a refusal.",
    )

    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(
                fields=["workspace", "name"], name="bot_unique_name_per_workspace"
            ),
            models.CheckConstraint(
                condition=~Q(rag_strictness="relaxed") | ~Q(relaxation_statement=""),
                name="bot_relaxed_needs_statement",
                violation_error_message="A relaxed bot needs a relaxation statement.",
            ),
            models.CheckConstraint(
                condition=Q(llm_temperature__gte=0, llm_temperature__lte=2),
                name="bot_temperature_range",
                violation_error_message="Temperature must be between 0 and 2.",
            ),
            models.CheckConstraint(
                condition=Q(llm_max_output_tokens__gte=16, llm_max_output_tokens__lte=32000),
                name="bot_max_tokens_range",
                violation_error_message="Max output tokens must be between 16 and 32000.",
            ),
            models.CheckConstraint(
                condition=Q(llm_timeout_seconds__gte=1, llm_timeout_seconds__lte=600),
                name="bot_timeout_range",
                violation_error_message="The LLM timeout must be between 1 and 600 seconds.",
            ),
            models.CheckConstraint(
                condition=Q(answer_max_sentences__gte=1, answer_max_sentences__lte=10),
                name="bot_answer_max_sentences_range",
                violation_error_message="An answer holds between 1 and 10 sentences.",
            ),
            models.CheckConstraint(
                condition=Q(retrieval_top_k__gte=1, retrieval_top_k__lte=50),
                name="bot_top_k_range",
                violation_error_message="Top k must be between 1 and 50.",
            ),
            models.CheckConstraint(
                condition=Q(retrieval_score_threshold__gte=0, retrieval_score_threshold__lte=1),
                name="bot_score_threshold_range",
                violation_error_message="The score threshold must be between 0 and 1.",
            ),
            models.CheckConstraint(
                condition=Q(
                    escalation_confidence_threshold__gte=0, escalation_confidence_threshold__lte=1
                ),
                name="bot_confidence_threshold_range",
                violation_error_message="The confidence threshold must be between 0 and 1.",
            ),
            models.CheckConstraint(
                condition=Q(injection_threshold__gte=0.1, injection_threshold__lte=1),
                name="bot_injection_threshold_range",
                violation_error_message="The injection threshold must be between 0.1 and 1.",
            ),
            models.CheckConstraint(
                condition=Q(
                    injection_watch__gte=0.05, injection_watch__lte=F("injection_threshold")
                ),
                name="bot_injection_watch_range",
                violation_error_message="The watch band starts between 0.05 and the injection threshold.",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class BotLocaleText(models.Model):
    """The user-facing texts in one extra locale; the bot's own fields serve its default locale.

    Refusal and no-answer are required; an empty text of the others falls back to the default locale's.
    """

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="locale_texts")
    locale = models.CharField(max_length=10)
    refusal_text = models.CharField(max_length=MEDIUM)
    no_answer_text = models.CharField(max_length=MEDIUM)
    injection_refusal_text = models.CharField(max_length=MEDIUM, blank=True)
    escalation_text = models.CharField(max_length=MEDIUM, blank=True)
    escalation_unavailable_text = models.CharField(max_length=MEDIUM, blank=True)

    class Meta:
        ordering = ["locale"]
        verbose_name = "localized text"
        constraints = [
            models.UniqueConstraint(
                fields=["bot", "locale"],
                name="bot_locale_text_unique",
                violation_error_message="This locale already has texts for this bot.",
            )
        ]

    def __str__(self) -> str:
        return f"{self.bot} ({self.locale})"
