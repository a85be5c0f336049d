"""A visitor's traces in Redis: the event buffers of their streams (a streamed answer's, their
conversation's live channel), their events in the workspace's other streams (the agents' queue), and
the rate-limit counters named after them. Idempotent: what is gone is simply not found again."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

import redis

from streams.redis_gateway import redis_sync

_OWNER_KEYS = "parley:sse:*:owner"
_OWNER_SUFFIX = ":owner"
_RATE_LIMIT = "parley:rl:visitor:*:{identity}"
_SCAN_BATCH = 500
_GLOB = re.compile(r"([*?\[\]\\])")


@dataclass(frozen=True)
class RedisPurged:
    streams: int
    entries: int
    counters: int


def visitor_redis_purge(
    *,
    workspace_id: str,
    conversation_ids: Iterable[str],
    external_user_id: str | None,
    visitor_ids: Iterable[str],
) -> RedisPurged:
    """Drop the streams owned by the visitor's conversations (or by the external user) in the
    workspace, the entries naming those conversations in the workspace's other streams, and the
    visitor's rate-limit counters."""
    client = redis_sync()
    conversations = {str(value) for value in conversation_ids}
    streams = entries = 0
    for owner_key in client.scan_iter(match=_OWNER_KEYS, count=_SCAN_BATCH):
        raw = client.get(owner_key)
        if not raw:
            continue
        owner = json.loads(raw)
        if owner.get("workspace_id") != workspace_id:
            continue
        stream_key = owner_key[: -len(_OWNER_SUFFIX)]
        mine = owner.get("conversation_id") in conversations or bool(
            external_user_id and owner.get("external_user_id") == external_user_id
        )
        if mine:
            # with the producers' written-hash (`streams.sse.buffer.stream_written_key`, no text)
            streams += client.delete(stream_key, owner_key, f"{stream_key}:written") and 1
            continue
        entries += _entries_drop(client, stream_key, conversations, external_user_id)
    identities = [f"visitor:{visitor}" for visitor in visitor_ids if visitor]
    if external_user_id:
        identities.append(f"ext:{external_user_id}")
    counters = 0
    for identity in identities:
        pattern = _RATE_LIMIT.format(identity=_GLOB.sub(r"\\\1", identity))
        keys = list(client.scan_iter(match=pattern, count=_SCAN_BATCH))
        counters += client.delete(*keys) if keys else 0
    return RedisPurged(streams=streams, entries=entries, counters=counters)


def _entries_drop(
    client: redis.Redis, stream_key: str, conversations: set[str], external_user_id: str | None
) -> int:
    """XDEL the entries of a shared stream (the agents' queue) whose data names the visitor."""
    needles = [*conversations, *([external_user_id] if external_user_id else [])]
    if not needles:
        return 0
    doomed: list[str] = []
    for entry_id, fields in client.xrange(stream_key) or []:
        data = str((fields or {}).get("d", ""))
        if entry_id is not None and any(needle in data for needle in needles):
            doomed.append(str(entry_id))
    return int(client.xdel(stream_key, *doomed)) if doomed else 0
