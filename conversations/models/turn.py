"""A chat turn (a visitor message, the bot's answer and its audit) and the attacks recorded on turns."""

from __future__ import annotations

import uuid

from django.db import models

from conversations.models.audit import AnswerAudit, TurnStatus
from conversations.models.conversation import Conversation


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
