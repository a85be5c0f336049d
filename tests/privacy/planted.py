"""A visitor's data planted everywhere Parley keeps it, each piece a unique string, and the searches
that prove an erasure left none: every text-like column of the database (information_schema) and
every Redis key and value."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.core.files.storage import default_storage
from django.db import connection
from django.test import Client
from django.utils import timezone

from bots.models import Bot
from conversations.models import SecurityEvent, Turn
from core.models import Workspace
from handoff.feedback import turn_feedback_record
from handoff.live import queue_channel
from handoff.models import Handoff, HandoffReason
from handoff.services import handoff_open, visitor_message_post
from insights.models import FaqCandidate, GapCluster, GapClustering
from streams.live import live_publish
from streams.redis_gateway import redis_sync
from streams.sse import StreamOwner, stream_open, stream_publish
from tests.api.factories import bearer, server_key_make
from tests.support.knowledge import document_ingested

# Text-like columns: what a visitor's words can be stored in (tsvector: the analysed chunks).
_COLUMNS_SQL = """
SELECT table_name, column_name FROM information_schema.columns
WHERE table_schema = 'public'
  AND data_type IN ('text', 'character varying', 'json', 'jsonb', 'ARRAY', 'tsvector')
"""


def plant() -> str:
    return f"zq{uuid.uuid4().hex[:12]}"


@dataclass
class Visitor:
    workspace: Workspace
    bot: Bot
    key: str
    external_user_id: str
    conversation_id: str
    turn_id: str
    strings: dict[str, str] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)

    @property
    def everything(self) -> list[str]:
        return [self.external_user_id, *self.strings.values()]


def visitor_plant(*, workspace: Workspace, bot: Bot) -> Visitor:
    """One visitor's conversation (a turn through the API, feedback, a handoff with messages), two
    private documents, a search, a security event, a gap cluster, an FAQ candidate and streams."""
    key, _ = server_key_make(workspace, scopes=("chat", "rag_search", "privacy"))
    ext = plant()
    s = {name: plant() for name in ("question", "comment", "message", "detail", "doc_conv")}
    s |= {name: plant() for name in ("doc_user", "search", "excerpt", "faq", "stream")}
    api = Client(headers={"X-Parley-External-User": ext}, **bearer(key))
    session = api.post("/api/v1/sessions", {"bot_id": str(bot.pk)}, content_type="application/json")
    assert session.status_code == 201, session.content
    conversation_id = session.json()["conversation_id"]
    turn = api.post(
        f"/api/v1/conversations/{conversation_id}/turns",
        {"message": f"Where is my parcel {s['question']}?", "client_message_id": "m1"},
        content_type="application/json",
    )
    assert turn.status_code == 200, turn.content
    turn_id = turn.json()["turn_id"]
    turn_feedback_record(turn_id=turn_id, rating="down", comment=f"wrong {s['comment']}")
    handoff = handoff_open(
        conversation_id=conversation_id,
        reason=HandoffReason.VISITOR_REQUEST,
        detail=f"asked {s['detail']}",
        turn_id=turn_id,
    )
    visitor_message_post(conversation_id=conversation_id, text=f"hello {s['message']}")
    documents = [
        document_ingested(
            workspace=workspace,
            text=f"# Receipt\n\nParcel receipt {s['doc_conv']} signed.\n",
            conversation_id=uuid.UUID(conversation_id),
            filename=f"receipt-{s['doc_conv']}.md",
        ),
        document_ingested(
            workspace=workspace,
            text=f"# Contract\n\nContract {s['doc_user']} of the customer.\n",
            external_user_id=ext,
        ),
    ]
    search = api.post(
        "/api/v1/rag_search",
        {"query": f"my contract {s['search']}"},
        content_type="application/json",
    )
    assert search.status_code == 200, search.content
    SecurityEvent.objects.create(
        conversation_id=conversation_id,
        turn_id=turn_id,
        kind="injection_attempt",
        excerpt=s["excerpt"],
    )
    question = Turn.objects.get(pk=turn_id).user_text
    now = timezone.now()
    clustering = GapClustering.objects.create(
        bot=bot, period_start=now - timedelta(days=7), period_end=now, status="completed"
    )
    cluster = GapCluster.objects.create(
        clustering=clustering,
        label=question,
        size=2,
        examples=[question, "an other visitor's question"],
        centroid=[],
    )
    cluster.turns.add(turn_id)
    FaqCandidate.objects.create(
        bot=bot, handoff=Handoff.objects.get(pk=handoff.pk), question=s["faq"], answer="ok"
    )
    owner = StreamOwner(workspace_id=str(workspace.pk), conversation_id=conversation_id)
    stream_id = stream_open(owner=owner)
    stream_publish(stream_id=stream_id, event="tool_partial_update", data={"content": s["stream"]})
    live_publish(
        channel=queue_channel(workspace_id=workspace.pk),
        event="queue_changed",
        data={"conversation_id": conversation_id, "preview": s["message"]},
    )
    return Visitor(
        workspace=workspace,
        bot=bot,
        key=key,
        external_user_id=ext,
        conversation_id=conversation_id,
        turn_id=turn_id,
        strings=s,
        files=[document.file.name for document in documents],
    )


def database_holding(strings: list[str]) -> list[str]:
    """Every table.column whose value holds one of the strings."""
    pattern = "|".join(strings)
    found = []
    with connection.cursor() as cursor:
        cursor.execute(_COLUMNS_SQL)
        for table, column in cursor.fetchall():
            cursor.execute(
                f'SELECT 1 FROM "{table}" WHERE "{column}"::text ~* %s LIMIT 1',  # noqa: S608 (names from the catalogue)
                [pattern],
            )
            if cursor.fetchone():
                found.append(f"{table}.{column}")
    return found


def redis_holding(strings: list[str]) -> list[str]:
    """Every Redis key whose name or value holds one of the strings."""
    client = redis_sync()
    found = []
    for key in client.scan_iter(count=1000):
        values: Any
        kind = client.type(key)
        if kind == "string":
            values = [client.get(key)]
        elif kind == "hash":
            values = list(client.hgetall(key).items())
        elif kind == "list":
            values = client.lrange(key, 0, -1)
        elif kind == "set":
            values = list(client.smembers(key))
        elif kind == "zset":
            values = client.zrange(key, 0, -1)
        elif kind == "stream":
            values = client.xrange(key)
        else:
            values = []
        text = f"{key} {values}".lower()
        if any(string.lower() in text for string in strings):
            found.append(key)
    return found


def files_left(names: list[str]) -> list[str]:
    return [name for name in names if default_storage.exists(name)]
