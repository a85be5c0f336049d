"""Retention per workspace: the periodic task deletes conversations, turns, messages, rag_search audits
and security events older than the workspace's days (whole days), other workspaces keep theirs, and
the analytics rollups keep counting what went, through later refreshes and rebuilds."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from conversations.models import Conversation, RagSearchExecution, SecurityEvent, Turn
from core.models import Workspace
from handoff.models import Message
from insights.models import TurnRollup
from insights.services.rollups import turn_rollups_rebuild, turn_rollups_refresh
from privacy.services.retention import retention_cutoff
from privacy.tasks import retention_apply_task
from tests.api.factories import bot_make, workspace_make
from tests.insights.helpers import turn_answered

pytestmark = pytest.mark.django_db


def _aged(turn: Turn, days: int) -> None:
    at = timezone.now() - timedelta(days=days)
    Turn.objects.filter(pk=turn.pk).update(created_at=at, completed_at=at)


def _counts(bot_id: object) -> int:
    return sum(
        TurnRollup.objects.filter(bot_id=bot_id, dimension="turns").values_list("n", flat=True)
    )


def test_the_task_deletes_what_is_older_than_the_workspace_keeps() -> None:
    workspace = workspace_make()
    Workspace.objects.filter(pk=workspace.pk).update(retention_days=30)
    bot = bot_make(workspace)
    old = Conversation.objects.create(bot=bot)
    for n in range(3):
        _aged(turn_answered(old, n, "old question", "found_in_context"), days=40)
    Conversation.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=40))
    event_turn = Turn.objects.filter(conversation=old).first()
    assert event_turn is not None
    SecurityEvent.objects.create(
        conversation=old, turn=event_turn, kind="injection_attempt", excerpt="old attack"
    )
    # A conversation still in use: its old turn and message go, its recent turn stays.
    alive = Conversation.objects.create(bot=bot)
    Conversation.objects.filter(pk=alive.pk).update(created_at=timezone.now() - timedelta(days=45))
    _aged(turn_answered(alive, 1, "old in a live one", "found_in_context"), days=45)
    recent = turn_answered(alive, 2, "recent", "found_in_context")
    message = Message.objects.create(conversation=alive, role="visitor", text="old message")
    Message.objects.filter(pk=message.pk).update(created_at=timezone.now() - timedelta(days=45))
    search = RagSearchExecution.objects.create(workspace=workspace, query="old search")
    RagSearchExecution.objects.filter(pk=search.pk).update(
        created_at=timezone.now() - timedelta(days=31)
    )
    # Another workspace without retention keeps its old turns.
    keeper = bot_make(workspace_make())
    kept = Conversation.objects.create(bot=keeper)
    _aged(turn_answered(kept, 1, "kept", "found_in_context"), days=400)

    turn_rollups_rebuild(bot_id=str(bot.pk))
    before = _counts(bot.pk)
    assert before == 5

    deleted = retention_apply_task()
    assert deleted == {
        "workspaces": 1,
        "conversations": 1,
        "turns": 1,
        "messages": 1,
        "searches": 1,
        "security_events": 0,  # it went with its conversation
    }
    assert not Conversation.objects.filter(pk=old.pk).exists()
    assert list(Turn.objects.filter(conversation=alive)) == [recent]
    assert not Message.objects.filter(pk=message.pk).exists()
    assert not SecurityEvent.objects.filter(conversation__bot=bot).exists()
    assert Turn.objects.filter(conversation=kept).exists()
    # The analytics still count the deleted turns, after a refresh and after a rebuild.
    turn_rollups_refresh()
    assert _counts(bot.pk) == before
    turn_rollups_rebuild(bot_id=str(bot.pk))
    assert _counts(bot.pk) == before


def test_retention_is_off_by_default_and_cuts_at_the_start_of_a_day() -> None:
    assert Workspace.objects.create(name="w", slug="w").retention_days is None
    now = timezone.now()
    cutoff = retention_cutoff(days=30, now=now)
    assert timezone.localtime(cutoff).hour == 0 and (now - cutoff).days == 30
