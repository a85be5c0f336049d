"""The answer audit every answer keeps (a chat turn's or a rag_search's), and the answer statuses
it records."""

from __future__ import annotations

from django.db import models


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
