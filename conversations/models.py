"""Conversations between a visitor and a bot (and, after a handoff, a human agent)."""

from __future__ import annotations

import secrets
import string
import uuid

from django.contrib.postgres.fields import ArrayField
from django.db import models

from bots.models import Bot
from core.models import Workspace

# The rag_search spec's execution ids read like a tool call's: "call_" and 24 letters or digits.
EXECUTION_ID_PREFIX = "call_"
EXECUTION_ID_PATTERN = r"^call_[A-Za-z0-9]{24}$"
_EXECUTION_ID_ALPHABET = string.ascii_letters + string.digits


def execution_id_new() -> str:
    return EXECUTION_ID_PREFIX + "".join(secrets.choice(_EXECUTION_ID_ALPHABET) for _ in range(24))


class Conversation(models.Model):
    class Owner(models.TextChoices):
        BOT = "bot", "Bot"
        WAITING_AGENT = "waiting_agent", "Waiting for an agent"
        AGENT = "agent", "Agent"
        RESOLVED = "resolved", "Resolved"

    class Channel(models.TextChoices):
        """Where the visitor writes from: the analytics' channel dimension and the console's label.
        Slack, e-mail, WhatsApp and Telegram conversations come through the `connectors` app (above handoff)."""

        WIDGET = "widget", "Widget"
        API = "api", "API"
        SLACK = "slack", "Slack"
        EMAIL = "email", "E-mail"
        WHATSAPP = "whatsapp", "WhatsApp"
        TEAMS = "teams", "Microsoft Teams"
        TELEGRAM = "telegram", "Telegram"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="conversations")
    channel = models.CharField(max_length=20, choices=Channel.choices, default=Channel.API)
    visitor_id = models.CharField(max_length=64, blank=True)
    # The widget's own id for the browser (random, kept in its localStorage): whose conversations
    # these are for an export or an erasure by visitor id. Never a credential: access goes by the
    # session token, whose visitor_id above the server made.
    widget_visitor_id = models.CharField(max_length=64, blank=True, db_index=True)
    external_user_id = models.CharField(max_length=255, blank=True, db_index=True)
    owner = models.CharField(max_length=20, choices=Owner.choices, default=Owner.BOT)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.bot} · {self.channel} · {self.created_at:%Y-%m-%d %H:%M}"


class TurnStatus(models.TextChoices):
    """The answer statuses of the spec (conversations.types.AnswerStatus), as model choices."""

    FOUND_IN_CONTEXT = "found_in_context", "Found in context"
    NOT_FOUND_IN_CONTEXT = "not_found_in_context", "Not found in context"
    SMALL_TALK = "small_talk", "Small talk"
    OUT_OF_SCOPE = "out_of_scope", "Out of scope"
    HUMAN_ESCALATION = "human_escalation", "Human escalation"
    INJECTION_ATTEMPT = "injection_attempt", "Injection attempt"


class AnswerAudit(models.Model):
    """The audit every answer keeps, a chat turn's or a rag_search's: when it started and finished,
    the prompt, every LLM call and its raw output, the repairs, the model and its usage, the
    latencies. Written by `conversations.services.answer_audit_complete` for both."""

    created_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    prompt_version = models.CharField(max_length=64, blank=True)
    prompt_hash = models.CharField(max_length=64, blank=True)
    raw_output = models.TextField(blank=True)
    # Every call made for this answer: [{generator, error_code, error_message, raw_output}].
    attempts = models.JSONField(default=list, blank=True)
    parsed_output = models.JSONField(null=True, blank=True)
    repairs = models.JSONField(default=list, blank=True)
    # The remote LLM's failure when the offline provider answered in its place.
    llm_error_code = models.CharField(max_length=40, blank=True)
    llm_error_message = models.TextField(blank=True)
    model = models.CharField(max_length=200, blank=True)
    prompt_tokens = models.PositiveIntegerField(null=True, blank=True)
    completion_tokens = models.PositiveIntegerField(null=True, blank=True)
    # Milliseconds per phase, e.g. {"condense": 0, "retrieve": 12, "llm": 840, "total": 870}.
    latencies = models.JSONField(default=dict, blank=True)

    class Meta:
        abstract = True
        ordering = ["-created_at"]


class Turn(AnswerAudit):
    """One visitor message and the bot's answer, with the full audit of how the answer was made.

    Idempotent on (conversation, client_message_id): a retried send finds the same turn.
    `completed_at` stays null until the answer is recorded, by one conditional UPDATE.
    """

    Status = TurnStatus

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="turns")
    client_message_id = models.CharField(max_length=100)
    execution_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)

    user_text = models.TextField()
    condensed_question = models.TextField(blank=True)
    # [{chunk_id, document_id, title, page, score, rank}], in retrieval order.
    retrieved_chunks = models.JSONField(default=list, blank=True)

    status = models.CharField(max_length=30, choices=Status.choices, blank=True)
    answer = models.TextField(blank=True)
    topic = models.CharField(max_length=200, blank=True)
    suggested_topics = models.JSONField(default=list, blank=True)
    understanding = models.TextField(blank=True)
    confidence = models.FloatField(null=True, blank=True)
    redirection_intent = models.CharField(max_length=100, blank=True)
    display_answer = models.BooleanField(default=True)
    context_usage = models.JSONField(default=list, blank=True)
    route_action = models.CharField(max_length=20, blank=True)
    route_reason = models.CharField(max_length=40, blank=True)
    # What the visitor was shown: the answer, a configured text (refusal, handoff...), or "" when hidden.
    reply_text = models.TextField(blank=True)

    class Meta(AnswerAudit.Meta):
        constraints = [
            models.UniqueConstraint(
                fields=["conversation", "client_message_id"], name="turn_unique_client_message"
            ),
            models.CheckConstraint(
                condition=models.Q(confidence__isnull=True)
                | models.Q(confidence__gte=0, confidence__lte=1),
                name="turn_confidence_in_unit_range",
            ),
            models.CheckConstraint(
                condition=models.Q(status="") | models.Q(status__in=TurnStatus.values),
                name="turn_status_valid",
            ),
            models.CheckConstraint(
                condition=models.Q(completed_at__isnull=True) | ~models.Q(status=""),
                name="turn_completed_has_status",
            ),
        ]
        indexes = [
            models.Index(fields=["conversation", "created_at"], name="turn_conversation_created")
        ]

    def __str__(self) -> str:
        return f"{self.client_message_id} · {self.status or 'pending'}"


class SecurityEvent(models.Model):
    """A recorded attack on a bot, for the admins to review: an injection attempt refused (the
    detector's refusal band, or the model's flag), or a message in the detector's watch band, answered
    normally and recorded here."""

    class Kind(models.TextChoices):
        INJECTION_ATTEMPT = "injection_attempt", "Injection attempt (refused)"
        INJECTION_WATCHED = "injection_watched", "Suspected injection (answered)"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="security_events"
    )
    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="security_events")
    kind = models.CharField(max_length=30, choices=Kind.choices)
    # The offending input, and the explanation of the attack (the answer's `understanding`).
    excerpt = models.TextField()
    explanation = models.TextField(blank=True)
    model = models.CharField(max_length=200, blank=True)
    # The injection detector's verdict on the message (guard): its score and strongest cue
    # ("override", "classifier"...; "model_flag" when only the LLM flagged it).
    score = models.FloatField(null=True, blank=True)
    label = models.CharField(max_length=40, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["turn", "kind"], name="security_event_unique_per_turn")
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} · {self.created_at:%Y-%m-%d %H:%M}"


class RagSearchExecution(AnswerAudit):
    """One rag_search call, audited like a turn: the caller, the query and its scope, the retrieved contexts with
    their scores, the raw LLM output and repairs, the response, usage and per-phase latencies.

    Inserted as `running` when the call starts, then completed or failed by one conditional UPDATE, so a
    failed call keeps its error and a call cut short (a killed worker) still shows as started.
    """

    class Status(models.TextChoices):
        RUNNING = "running", "Running"
        COMPLETED = "completed", "Completed"
        FAILED = "failed", "Failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    execution_id = models.CharField(
        max_length=40, unique=True, default=execution_id_new, editable=False
    )
    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="rag_search_executions"
    )
    # The audit outlives a deleted bot or conversation.
    bot = models.ForeignKey(Bot, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    conversation = models.ForeignKey(
        Conversation, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # The API key that called ("server" or "widget"), by id: the api app sits above this one.
    caller_kind = models.CharField(max_length=20, blank=True)
    api_key_id = models.UUIDField(null=True, blank=True)
    external_user_id = models.CharField(max_length=255, blank=True)

    query = models.TextField()
    # Null: every document in scope; otherwise the ids the caller named.
    document_ids = ArrayField(models.UUIDField(), null=True, blank=True)
    condensed_query = models.TextField(blank=True)
    expanded_query = models.TextField(
        blank=True
    )  # what full-text search ran: query, keywords, synonyms
    # [{rank, chunk_id, document_id, title, vector_score, vector_rank, text_score, text_rank, fused_score,
    #   rerank_score, text_preview, used_in_response, ...}], in rank order.
    contexts = models.JSONField(default=list, blank=True)

    answer_status = models.CharField(max_length=30, choices=TurnStatus.choices, blank=True)
    response = models.TextField(blank=True)
    sources_used = ArrayField(models.PositiveSmallIntegerField(), default=list, blank=True)

    status = models.CharField(max_length=20, choices=Status.choices, default=Status.RUNNING)
    error_code = models.CharField(max_length=60, blank=True)
    error_message = models.TextField(blank=True)

    class Meta(AnswerAudit.Meta):
        indexes = [
            models.Index(fields=["workspace", "-created_at"], name="rag_search_workspace_created")
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(execution_id__regex=EXECUTION_ID_PATTERN),
                name="rag_search_execution_id_format",
            ),
            models.CheckConstraint(
                condition=models.Q(status__in=["running", "completed", "failed"]),
                name="rag_search_status_valid",
            ),
            models.CheckConstraint(
                condition=models.Q(answer_status="")
                | models.Q(answer_status__in=TurnStatus.values),
                name="rag_search_answer_status_valid",
            ),
            # Running until finished; a finished call has its end time, a failed one its error, a completed one
            # its answer.
            models.CheckConstraint(
                condition=models.Q(status="running", completed_at__isnull=True)
                | models.Q(status="failed", completed_at__isnull=False) & ~models.Q(error_code="")
                | models.Q(status="completed", completed_at__isnull=False)
                & ~models.Q(answer_status=""),
                name="rag_search_finished_consistently",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.execution_id} · {self.status}"


class CuratedAnswer(models.Model):
    """An admin's answer to a question: a visitor question close enough to it (the bot's
    `CuratedAnswerPolicy`) is answered with it, before retrieval (conversations.pipeline.curated).

    Kept here, below the admin pages that write it (insights), because the turn's path reads it.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="curated_answers")
    question = models.CharField(max_length=4000)
    answer = models.CharField(max_length=4000)
    is_active = models.BooleanField(default=True)
    # The question's normalised embedding and the model that made it: a turn compares it with the
    # question's vector of the same model only (a workspace may change models; saving re-embeds).
    embedding = models.JSONField(default=list, blank=True)
    embedding_model = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["bot", "question"]
        indexes = [models.Index(fields=["bot", "is_active"], name="curated_answer_bot_active")]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(question="") & ~models.Q(answer=""),
                name="curated_answer_not_blank",
            )
        ]

    def __str__(self) -> str:
        return self.question[:80]


class CuratedAnswerPolicy(models.Model):
    """Per bot: how close (cosine similarity) a question must be to a curated one to get its answer."""

    DEFAULT_SIMILARITY = 0.85

    bot = models.OneToOneField(
        Bot, on_delete=models.CASCADE, primary_key=True, related_name="curated_answer_policy"
    )
    similarity_threshold = models.FloatField(default=DEFAULT_SIMILARITY)

    class Meta:
        verbose_name_plural = "curated answer policies"
        constraints = [
            models.CheckConstraint(
                condition=models.Q(similarity_threshold__gte=0.5, similarity_threshold__lte=1),
                name="curated_threshold_range",
            )
        ]

    def __str__(self) -> str:
        return f"curated answers of {self.bot}"
