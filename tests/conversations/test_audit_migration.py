"""The shared audit shape (`AnswerAudit`) came as a migration that keeps the rows already stored."""

from __future__ import annotations

import uuid

import pytest
from auditlog.context import disable_auditlog
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from bots.models import Bot
from conversations.models import RagSearchExecution, Turn
from core.models import Workspace

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("conversations", "0004_rag_search_execution")]
AFTER = [("conversations", "0005_answer_audit_shared_columns")]


def _migrate(targets: list[tuple[str, str]]) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)


def test_existing_turns_and_executions_keep_their_audit() -> None:
    _migrate(BEFORE)
    try:
        old = MigrationExecutor(connection).loader.project_state(BEFORE).apps
        # Only the conversations app goes back: the apps it depends on keep their current tables,
        # so their rows are made with today's models.
        # (the audit trail's diff of a new bot reads its curated-answer policy, a table the old
        # schema lacks: the audit trail is not what this migration test is about)
        with disable_auditlog():
            workspace = Workspace.objects.create(name="Old", slug="old")
            bot = Bot.objects.create(workspace=workspace, name="Old bot")
        conversation = old.get_model("conversations", "Conversation").objects.create(bot_id=bot.pk)
        turn = old.get_model("conversations", "Turn").objects.create(
            conversation_id=conversation.pk,
            client_message_id="m1",
            user_text="Price?",
            status="found_in_context",
            model="scripted-model",
            latencies={"total": 12},
        )
        execution = old.get_model("conversations", "RagSearchExecution").objects.create(
            workspace_id=workspace.pk, query="Price?", llm_error_code="llm_timeout"
        )
    finally:
        # Forward to every app's latest migration, not just AFTER: the tests that run next in this
        # session need the whole schema (going back to BEFORE also unapplied later migrations).
        _migrate(AFTER)
        _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
    kept = Turn.objects.get(pk=uuid.UUID(str(turn.pk)))
    assert (kept.user_text, kept.status, kept.model, kept.latencies) == (
        "Price?",
        "found_in_context",
        "scripted-model",
        {"total": 12},
    )
    assert kept.llm_error_message == ""  # the column the turn gained from the shared shape
    assert RagSearchExecution.objects.get(pk=execution.pk).llm_error_code == "llm_timeout"
