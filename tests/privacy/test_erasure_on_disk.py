"""After an erasure the visitor's words are nowhere Parley controls: not in a pg_dump, not in any
Valkey key's serialised value, not in Valkey's files on disk (its append-only files and snapshot,
rewritten after the erasure). A Valkey that refuses the rewrite leaves a note, not a failure."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import pytest
import redis
from django.conf import settings
from django.core.management import call_command
from django.test import Client

from conversations.models import Conversation
from handoff.live import queue_channel
from privacy.models import VisitorErasure
from privacy.services import valkey_files
from streams.live import live_publish
from streams.redis_gateway import redis_sync
from streams.sse.buffer import stream_key
from tests.api.factories import bot_make, widget_key_make, workspace_make
from tests.privacy.on_disk import (
    ORIGIN,
    pg_dump_holding,
    valkey_files_holding,
    valkey_files_wait_holding,
    valkey_keys_holding,
    valkey_uncompressed,
    widget_visitor_talks,
)
from tests.privacy.planted import plant

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def uncompressed() -> Iterator[None]:
    yield from valkey_uncompressed()


def _widget_key() -> str:
    bot = bot_make(workspace_make())
    bot.escalation_allowed = True
    bot.save()
    return widget_key_make(bot, origins=(ORIGIN,)).key


def test_an_erased_widget_message_is_gone_from_the_dump_the_keys_and_valkeys_files(
    uncompressed: None,
) -> None:
    key = _widget_key()
    planted, kept = plant(), plant()
    conversation_id = widget_visitor_talks(Client(), key, planted=planted)
    widget_visitor_talks(Client(), key, planted=kept)  # another visitor of the same bot
    assert pg_dump_holding([planted]) == [planted]
    assert valkey_keys_holding([planted])  # the live channel and the agents' queue
    assert any(name.startswith("appendonlydir/") for name in valkey_files_wait_holding([planted]))

    out = io.StringIO()
    call_command("visitor_erase", "--conversation-id", conversation_id, stdout=out)
    assert ": done " in out.getvalue()

    assert pg_dump_holding([planted]) == []
    assert valkey_keys_holding([planted]) == []
    assert valkey_files_holding([planted]) == []
    # The other visitor's words are still in the queue's stream, and so in the files.
    assert pg_dump_holding([kept]) == [kept] and valkey_keys_holding([kept])
    assert valkey_files_holding([kept])
    assert VisitorErasure.objects.get().notes == []


def test_a_valkey_refusing_the_rewrite_leaves_a_note_and_a_warning(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = _widget_key()
    conversation_id = widget_visitor_talks(Client(), key, planted=plant())
    admin = redis_sync()
    user = f"erasure-test-{plant()}"
    # An external Valkey whose ACL allows everything but the two rewrites (NOPERM on both).
    admin.acl_setuser(
        user,
        enabled=True,
        nopass=True,
        keys=["*"],
        channels=["*"],
        commands=["+@all", "-bgrewriteaof", "-bgsave"],
    )
    restricted = redis.Redis.from_url(
        settings.REDIS_URL, username=user, password="unused", decode_responses=True
    )
    monkeypatch.setattr(valkey_files, "redis_sync", lambda: restricted)
    try:
        with caplog.at_level(logging.WARNING, logger="privacy.services.valkey_files"):
            call_command(
                "visitor_erase", "--conversation-id", conversation_id, stdout=io.StringIO()
            )
    finally:
        restricted.close()
        admin.acl_deluser(user)
    erasure = VisitorErasure.objects.get()
    assert erasure.status == "done"
    assert len(erasure.notes) == 2 and all("NoPermission" in note for note in erasure.notes)
    assert "append-only file not rewritten" in caplog.text


def test_the_agents_queue_stream_is_rebuilt_without_the_visitors_entries(
    uncompressed: None,
) -> None:
    """XDEL only marks a stream entry deleted: its bytes stay in the key's value, and so in every
    snapshot. The erasure rebuilds the shared stream instead, keeping the others' entries and ids."""
    key = _widget_key()
    planted = plant()
    conversation_id = widget_visitor_talks(Client(), key, planted=planted)
    other_id = widget_visitor_talks(Client(), key, planted=plant())
    conversation = Conversation.objects.select_related("bot").get(pk=conversation_id)
    channel = queue_channel(workspace_id=conversation.bot.workspace_id)
    quoted = live_publish(
        channel=channel,
        event="queue_changed",
        data={"conversation_id": conversation_id, "preview": planted},
    )
    theirs = live_publish(
        channel=channel, event="queue_changed", data={"conversation_id": other_id}
    )
    stream = stream_key(channel.stream_id)
    client = redis_sync()
    before = client.xrange(stream)
    kept = [entry_id for entry_id, fields in before if conversation_id not in fields["d"]]
    assert quoted in [entry_id for entry_id, _ in before] and theirs in kept
    assert stream in valkey_keys_holding([planted])

    call_command("visitor_erase", "--conversation-id", conversation_id, stdout=io.StringIO())

    assert valkey_keys_holding([planted, conversation_id]) == []
    after = client.xrange(stream)
    assert [entry_id for entry_id, _ in after] == [
        entry_id for entry_id, fields in client.xrange(stream) if conversation_id not in fields["d"]
    ]
    assert theirs in [entry_id for entry_id, _ in after] and quoted not in after
    assert client.xinfo_stream(stream)["last-generated-id"] == theirs
    assert client.ttl(stream) > 0
