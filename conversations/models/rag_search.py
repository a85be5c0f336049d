"""The audit of one rag_search call, and the execution ids the spec gives it."""

from __future__ import annotations

import secrets
import string
import uuid

from django.contrib.postgres.fields import ArrayField
from django.db import models

from bots.models import Bot
from conversations.models.audit import AnswerAudit, TurnStatus
from conversations.models.conversation import Conversation
from core.models import Workspace

# The rag_search spec's execution ids read like a tool call's: "call_" and 24 letters or digits.
EXECUTION_ID_PREFIX = "call_"
EXECUTION_ID_PATTERN = r"^call_[A-Za-z0-9]{24}$"
_EXECUTION_ID_ALPHABET = string.ascii_letters + string.digits


def execution_id_new() -> str:
    return EXECUTION_ID_PREFIX + "".join(secrets.choice(_EXECUTION_ID_ALPHABET) for _ in range(24))


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
