"""A visitor's export and erasure, through the API (scope `privacy`) and the commands: the export
holds every planted piece; the erasure leaves none in any column, Redis key or file, keeps the
analytics' counts and records itself without the content."""

from __future__ import annotations

import io
import json
import uuid

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from conversations.models import Conversation, RagSearchExecution, Turn
from handoff.models import TurnFeedback
from insights.models import GapCluster, TurnRollup
from insights.services.rollups import turn_rollups_refresh
from privacy.models import VisitorErasure
from tests.api.factories import bearer, bot_make, server_key_make, workspace_make
from tests.insights.helpers import member_client
from tests.privacy.planted import (
    database_holding,
    files_left,
    plant,
    redis_holding,
    visitor_plant,
)

pytestmark = pytest.mark.django_db(transaction=True)


def _post(key: str, path: str, body: dict[str, str]) -> tuple[int, dict]:  # type: ignore[type-arg]
    response = Client().post(
        f"/api/v1/privacy/{path}", body, content_type="application/json", **bearer(key)
    )
    return response.status_code, response.json()


def _rollup_counts(bot_id: object) -> dict[tuple[str, str], int]:
    rows = TurnRollup.objects.filter(bot_id=bot_id, dimension__in=["turns", "status", "feedback"])
    return {(row.dimension, row.key): row.n for row in rows}


def test_export_round_trips_and_erasure_leaves_no_trace() -> None:
    workspace = workspace_make()
    bot = bot_make(workspace)
    visitor = visitor_plant(workspace=workspace, bot=bot)
    other = visitor_plant(workspace=workspace, bot=bot)  # a second visitor, who must keep all
    assert database_holding(visitor.everything) and redis_holding(visitor.everything)

    status, exported = _post(visitor.key, "exports", {"external_user_id": visitor.external_user_id})
    assert status == 200
    text = json.dumps(exported, ensure_ascii=False)
    for name in ("question", "comment", "message", "detail", "doc_conv", "doc_user", "search"):
        assert visitor.strings[name] in text, name
    assert other.external_user_id not in text and other.strings["question"] not in text
    (conversation,) = exported["conversations"]
    assert conversation["turns"][0]["feedback"]["comment"].endswith(visitor.strings["comment"])
    out = io.StringIO()
    call_command(
        "visitor_export",
        "--workspace",
        workspace.slug,
        "--conversation-id",
        visitor.conversation_id,
        stdout=out,
    )
    assert visitor.strings["message"] in out.getvalue()

    turn_rollups_refresh()
    counts = _rollup_counts(bot.pk)
    status, erasure = _post(visitor.key, "erasures", {"external_user_id": visitor.external_user_id})
    assert status == 200 and erasure["status"] == "done", (
        VisitorErasure.objects.filter(pk=erasure["id"])
        .values("error_code", "error_message")
        .first()
    )

    assert database_holding(visitor.everything) == []
    assert redis_holding(visitor.everything) == []
    assert files_left(visitor.files) == []
    # The other visitor keeps everything; the analytics keep their counts.
    assert set(database_holding(other.everything)) >= {
        "conversations_turn.user_text",
        "handoff_message.text",
    }
    assert files_left(other.files) == other.files
    turn_rollups_refresh()
    assert _rollup_counts(bot.pk) == counts
    assert Turn.objects.filter(pk=visitor.turn_id, status__gt="").exists()
    assert TurnFeedback.objects.get(turn_id=visitor.turn_id).rating == "down"
    assert GapCluster.objects.get(turns=visitor.turn_id).size == 2
    assert not RagSearchExecution.objects.filter(external_user_id=visitor.external_user_id).exists()

    record = VisitorErasure.objects.get(pk=erasure["id"])
    assert record.subject == "" and record.conversation_ids == [] and record.completed_at
    assert record.counts["documents"] == 2 and record.counts["messages"] >= 1
    # Asked again: the same record, not a 404; an id nobody used is one.
    assert _post(visitor.key, "erasures", {"external_user_id": visitor.external_user_id})[1][
        "id"
    ] == str(record.pk)
    assert _post(visitor.key, "erasures", {"external_user_id": plant()})[0] == 404
    assert _post(visitor.key, "erasures", {"conversation_id": str(uuid.uuid4())})[0] == 404
    assert _post(visitor.key, "exports", {"external_user_id": visitor.external_user_id})[0] == 404


def test_the_scope_and_the_workspace_bound_the_privacy_api() -> None:
    workspace = workspace_make()
    visitor = visitor_plant(workspace=workspace, bot=bot_make(workspace))
    everything_but_privacy, _ = server_key_make(workspace)  # no scopes listed: all but privacy
    body = {"external_user_id": visitor.external_user_id}
    assert _post(everything_but_privacy, "exports", body)[0] == 403
    assert _post(everything_but_privacy, "erasures", body)[0] == 403
    stranger, _ = server_key_make(workspace_make(), scopes=("privacy",))
    assert _post(stranger, "exports", body)[0] == 404
    assert _post(stranger, "erasures", {"conversation_id": visitor.conversation_id})[0] == 404
    assert (
        _post(visitor.key, "exports", {**body, "conversation_id": visitor.conversation_id})[0]
        == 400
    )


def test_the_command_erases_one_conversation_and_refuses_an_unknown_one() -> None:
    workspace = workspace_make()
    visitor = visitor_plant(workspace=workspace, bot=bot_make(workspace))
    out = io.StringIO()
    call_command("visitor_erase", "--conversation-id", visitor.conversation_id, stdout=out)
    assert ": done " in out.getvalue()
    conversation_only = [
        visitor.strings[name] for name in ("question", "message", "doc_conv", "stream")
    ]
    assert database_holding(conversation_only) == [] and redis_holding(conversation_only) == []
    # The external user's own contract, outside that conversation, stays.
    assert database_holding([visitor.strings["doc_user"]])
    assert Conversation.objects.get(pk=visitor.conversation_id).external_user_id == ""
    # The record, in the admin of the workspace's members only.
    url = reverse("admin:privacy_visitorerasure_changelist")
    erasure = VisitorErasure.objects.get(workspace=workspace)
    assert str(erasure.pk) in member_client(visitor.bot).get(url).content.decode()
    stranger = member_client(bot_make(workspace_make()))
    assert str(erasure.pk) not in stranger.get(url).content.decode()
    with pytest.raises(CommandError, match="visitor_not_found"):
        call_command("visitor_erase", "--conversation-id", str(uuid.uuid4()))
    with pytest.raises(CommandError, match="visitor_not_found"):
        call_command("visitor_erase", "--workspace", workspace.slug, "--external-user-id", plant())
