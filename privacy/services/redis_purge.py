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


# XDEL only marks an entry deleted inside its stream's node: its bytes stay in the key (DUMP shows
# them) and so in the snapshot and a rewritten append-only file. The stream is rebuilt instead, in
# one script (atomic: no producer's XADD falls between), without the doomed entries, keeping the
# others' ids, its last id (readers resume after it) and its time to live.
_STREAM_REBUILD = """
local doomed = {}
for _, id in ipairs(ARGV) do doomed[id] = true end
local entries = redis.call('XRANGE', KEYS[1], '-', '+')
local info = redis.call('XINFO', 'STREAM', KEYS[1])
local last_id
for i = 1, #info, 2 do if info[i] == 'last-generated-id' then last_id = info[i + 1] end end
local ttl = redis.call('PTTL', KEYS[1])
redis.call('DEL', KEYS[1])
local kept = 0
for _, entry in ipairs(entries) do
  if not doomed[entry[1]] then
    redis.call('XADD', KEYS[1], entry[1], unpack(entry[2]))
    kept = kept + 1
  end
end
if kept > 0 then
  redis.call('XSETID', KEYS[1], last_id)
  if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
end
return #entries - kept
"""


def _entries_drop(
    client: redis.Redis, stream_key: str, conversations: set[str], external_user_id: str | None
) -> int:
    """Remove the entries of a shared stream (the agents' queue) whose data names the visitor."""
    needles = [*conversations, *([external_user_id] if external_user_id else [])]
    if not needles:
        return 0
    doomed: list[str] = []
    for entry_id, fields in client.xrange(stream_key) or []:
        data = str((fields or {}).get("d", ""))
        if entry_id is not None and any(needle in data for needle in needles):
            doomed.append(str(entry_id))
    if not doomed:
        return 0
    return int(client.eval(_STREAM_REBUILD, 1, stream_key, *doomed))
