"""Valkey's files after an erasure: the append-only file rewritten (BGREWRITEAOF) and the snapshot
saved again (BGSAVE), each waited for, so what the erasure removed from the live keys is gone from
disk too. A server that refuses (a renamed or disabled command, an ACL) or is too slow is noted in
the erasure's record and logged, not a failed erasure: the live keys are already clean."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import redis
from django.conf import settings

from streams.redis_gateway import redis_sync

logger = logging.getLogger(__name__)

_POLL_SECONDS = 0.05


def valkey_files_rewrite(*, timeout: float | None = None) -> list[str]:
    """Rewrite the append-only file, then the snapshot; the notes of what could not be done (none
    when both finished)."""
    limit = float(timeout or settings.PRIVACY_VALKEY_REWRITE_TIMEOUT_SECONDS)
    client = redis_sync()
    notes = []
    for name, rewrite in (("append-only file", _aof_rewrite), ("snapshot", _snapshot_save)):
        try:
            note = rewrite(client, limit)
        except (redis.ResponseError, redis.ConnectionError, redis.TimeoutError) as error:
            note = f"valkey {name} not rewritten: {type(error).__name__}: {str(error)[:200]}"
        if note:
            logger.warning("after an erasure: %s", note)
            notes.append(note)
    return notes


def _persistence(client: redis.Redis) -> dict[str, Any]:
    return dict(client.info("persistence"))


def _aof_rewrite(client: redis.Redis, limit: float) -> str:
    before = _persistence(client)
    if not int(before.get("aof_enabled", 0)):
        return ""  # no append-only file to rewrite
    count = int(before.get("aof_rewrites", 0))
    client.bgrewriteaof()  # scheduled after a save or rewrite in progress: counted below all the same

    def finished(info: dict[str, Any]) -> bool:
        return (
            int(info.get("aof_rewrites", 0)) > count
            and not int(info.get("aof_rewrite_in_progress", 0))
            and not int(info.get("aof_rewrite_scheduled", 0))
        )

    return _wait(client, limit, finished, "append-only file", "aof_last_bgrewrite_status")


def _snapshot_save(client: redis.Redis, limit: float) -> str:
    count = int(_persistence(client).get("rdb_saves", 0))
    deadline = time.monotonic() + limit
    while True:
        try:
            # SCHEDULE: queued behind an append-only file rewrite still running
            client.bgsave(schedule=True)
            break
        except redis.ResponseError as error:
            # one already running saved the data as it was before: ours must run after it
            if "in progress" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(_POLL_SECONDS)

    def finished(info: dict[str, Any]) -> bool:
        return int(info.get("rdb_saves", 0)) > count and not int(
            info.get("rdb_bgsave_in_progress", 0)
        )

    return _wait(client, limit, finished, "snapshot", "rdb_last_bgsave_status")


def _wait(
    client: redis.Redis,
    limit: float,
    finished: Callable[[dict[str, Any]], bool],
    name: str,
    status_field: str,
) -> str:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        info = _persistence(client)
        if finished(info):
            status = str(info.get(status_field, "ok"))
            return "" if status == "ok" else f"valkey {name} rewrite ended: {status}"
        time.sleep(_POLL_SECONDS)
    return f"valkey {name} rewrite not finished within {limit:g} s"
