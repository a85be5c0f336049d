"""Human handoff state: owner moves (the audit), handoffs, messages exchanged with agents, turn feedback.

The conversation's owner itself lives on ``conversations.Conversation.owner`` and only changes
through conditional UPDATEs in ``handoff.services``; every change is one ``OwnerEvent`` row.
Feedback lives here rather than in ``conversations`` so this issue adds no migration to an app
another helper is extending in parallel; it is still one row per turn (``Turn.feedback``).
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q
from django.db.models.functions import Trim

from bots.models import Bot
from conversations.models import Conversation, Turn


class HandoffReason(models.TextChoices):
    VISITOR_REQUEST = "visitor_request", "The visitor asked for a human"
    HUMAN_ESCALATION = "human_escalation", "The bot routed a human escalation"
    LOW_CONFIDENCE = "low_confidence", "The answer's confidence was below the bot's threshold"


class HandoffPolicy(models.Model):
    """Per bot: how long a visitor waits for an agent before the timeout message."""

    bot = models.OneToOneField(
        Bot, on_delete=models.CASCADE, primary_key=True, related_name="handoff_policy"
    )
    timeout_seconds = models.PositiveIntegerField(default=300)
    timeout_text = models.CharField(
        max_length=1000,
        default="No agent is available right now. Leave a message here and we will get back to you.",
    )

    class Meta:
        verbose_name_plural = "handoff policies"
        constraints = [
            models.CheckConstraint(
                condition=Q(timeout_seconds__gte=1, timeout_seconds__lte=86400),
                name="handoff_timeout_range",
            )
        ]

    def __str__(self) -> str:
        return f"handoff policy of {self.bot}"


class Handoff(models.Model):
    """One request for a human, from opening to its return to the bot or resolution."""

    class Outcome(models.TextChoices):
        RETURNED = "returned", "Returned to the bot"
        RESOLVED = "resolved", "Resolved"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="handoffs"
    )
    reason = models.CharField(max_length=30, choices=HandoffReason.choices)
    detail = models.CharField(max_length=1000, blank=True)
    turn = models.ForeignKey(
        Turn, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    opened_at = models.DateTimeField(auto_now_add=True)
    claimed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="handoffs",
    )
    claimed_at = models.DateTimeField(null=True, blank=True)
    timed_out_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=20, choices=Outcome.choices, blank=True)
    # When the claiming agent closed it in the console: a conversation returned to the bot stays in
    # their list, with its later turns, until then.
    agent_closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["opened_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["conversation"],
                condition=Q(closed_at__isnull=True),
                name="handoff_one_open_per_conversation",
            ),
            models.CheckConstraint(
                condition=Q(closed_at__isnull=True, outcome="")
                | Q(closed_at__isnull=False) & ~Q(outcome=""),
                name="handoff_closed_has_outcome",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_reason_display()} · {self.opened_at:%Y-%m-%d %H:%M}"


class OwnerEvent(models.Model):
    """One move of a conversation's owner, with who made it and when."""

    class Actor(models.TextChoices):
        VISITOR = "visitor", "Visitor"
        BOT = "bot", "Bot"
        AGENT = "agent", "Agent"
        SYSTEM = "system", "System"

    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="owner_events"
    )
    from_owner = models.CharField(max_length=20, choices=Conversation.Owner.choices)
    to_owner = models.CharField(max_length=20, choices=Conversation.Owner.choices)
    actor = models.CharField(max_length=10, choices=Actor.choices)
    agent = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    reason = models.CharField(max_length=40, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(from_owner=models.F("to_owner")), name="owner_event_moves"
            )
        ]

    def __str__(self) -> str:
        return f"{self.from_owner} → {self.to_owner} ({self.actor})"


class Message(models.Model):
    """A message outside the bot's turns: the visitor's while the bot is muted, the agent's, the system's."""

    class Role(models.TextChoices):
        VISITOR = "visitor", "Visitor"
        AGENT = "agent", "Agent"
        SYSTEM = "system", "System"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="messages"
    )
    role = models.CharField(max_length=10, choices=Role.choices)
    text = models.TextField()
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    client_message_id = models.CharField(max_length=100, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # A visitor's message the agent left unanswered, answered by the bot after the return to it: that
    # turn carries the message from then on (its question), so the bot's history holds it once.
    answered_by = models.ForeignKey(
        Turn, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["created_at"]
        indexes = [
            models.Index(fields=["conversation", "created_at"], name="message_conversation_created")
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["conversation", "client_message_id"],
                condition=~Q(client_message_id=""),
                name="message_unique_client_message",
            ),
            models.CheckConstraint(
                condition=~Q(role="agent") | Q(author__isnull=False), name="message_agent_author"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.role}: {self.text[:40]}"


class AgentProfile(models.Model):
    """What visitors see of an agent: a display name of the agent's choosing (never the login)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="agent_profile",
    )
    display_name = models.CharField(
        max_length=80,
        blank=True,
        help_text="Shown to visitors instead of the login. Empty: a neutral label such as “Agent”.",
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(display_name=Trim("display_name")),
                name="agent_display_name_trimmed",
            )
        ]

    def __str__(self) -> str:
        return self.display_name or f"agent {self.user_id}"


class FeedbackReason(models.TextChoices):
    WRONG = "wrong", "Wrong"
    INCOMPLETE = "incomplete", "Incomplete"
    NOT_WHAT_I_ASKED = "not_what_i_asked", "Not what I asked"
    OFFENSIVE = "offensive", "Offensive"


class TurnFeedback(models.Model):
    class Rating(models.TextChoices):
        UP = "up", "👍"
        DOWN = "down", "👎"

    turn = models.OneToOneField(
        Turn, on_delete=models.CASCADE, primary_key=True, related_name="feedback"
    )
    rating = models.CharField(max_length=4, choices=Rating.choices)
    reasons = ArrayField(
        models.CharField(max_length=20, choices=FeedbackReason.choices), default=list, blank=True
    )
    comment = models.CharField(max_length=1000, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "turn feedback"
        constraints = [
            models.CheckConstraint(
                condition=Q(reasons__contained_by=FeedbackReason.values), name="feedback_reasons"
            ),
            models.CheckConstraint(
                condition=Q(rating__in=["up", "down"]), name="feedback_rating_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.rating} on {self.turn_id}"
