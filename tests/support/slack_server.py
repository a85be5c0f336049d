"""A local server speaking Slack's Web API (chat.postMessage, chat.update, auth.test and file
downloads) for the connector's tests, reached through the real `slack-sdk` client (its base_url).

It keeps every message of every thread with the history of its edits, checks the bot token, and can be
told to answer the next calls with an HTTP error (429 with Retry-After, 5xx), as Slack does.
Events go the other way: `slack_event_body` and `slack_signed_headers` build what Slack would POST.
"""

from __future__ import annotations

import itertools
import json
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from slack_sdk.signature import SignatureVerifier

from tests.support.platform_server import PlatformHandler, PlatformServer
from tests.support.processes import wait_for

BOT_TOKEN = "xoxb-test-token"
SIGNING_SECRET = "test-signing-secret-0123456789abcdef"


@dataclass
class SlackMessage:
    channel: str
    ts: str
    thread_ts: str
    text: str
    blocks: list[dict[str, Any]]
    edits: list[str] = field(default_factory=list)  # every text it had, the first post included

    def context_text(self) -> str:
        return " ".join(
            element.get("text", "")
            for block in self.blocks
            if block.get("type") == "context"
            for element in block.get("elements", [])
        )


@dataclass
class Failure:
    status: int
    retry_after: str | None = None


class SlackServer(PlatformServer):
    def __init__(self, *, token: str = BOT_TOKEN) -> None:
        self.token = token
        super().__init__()
        self.messages: list[SlackMessage] = []
        self.calls: list[tuple[str, float]] = []  # (method, when) of every call, failed ones too
        self.failures: deque[Failure] = deque()
        self.outage: Failure | None = None  # every chat.* call fails so until cleared
        self.files: dict[str, bytes] = {}
        self._ts = itertools.count(1)

    @property
    def base_url(self) -> str:
        return f"{self.root_url}api/"

    def file_url(self, name: str) -> str:
        return f"{self.root_url}files/{name}"

    def reset(self) -> None:
        with self.lock:
            self.messages.clear()
            self.calls.clear()
            self.failures.clear()
            self.outage = None
            self.files.clear()

    def fail_next(self, *failures: Failure) -> None:
        with self.lock:
            self.failures.extend(failures)

    def thread(self, channel: str, thread_ts: str) -> list[SlackMessage]:
        with self.lock:
            return [m for m in self.messages if m.channel == channel and m.thread_ts == thread_ts]

    def wait_thread(
        self,
        channel: str,
        thread_ts: str,
        predicate: Callable[[list[SlackMessage]], bool],
        *,
        timeout: float = 60,
        what: str = "the thread",
    ) -> list[SlackMessage]:
        wait_for(lambda: predicate(self.thread(channel, thread_ts)), timeout=timeout, what=what)
        return self.thread(channel, thread_ts)

    # --- the API ----------------------------------------------------------------------------
    def call(
        self, method: str, token: str, body: dict[str, Any]
    ) -> tuple[int, dict[str, Any], dict[str, str]]:
        with self.lock:
            self.calls.append((method, time.time()))
            if method.startswith("chat.") and (self.failures or self.outage):
                failure = self.failures.popleft() if self.failures else self.outage
                assert failure is not None
                headers = {"Retry-After": failure.retry_after} if failure.retry_after else {}
                error = "ratelimited" if failure.status == 429 else "internal_error"
                return failure.status, {"ok": False, "error": error}, headers
            if token != self.token:
                return 200, {"ok": False, "error": "invalid_auth"}, {}
            if method == "auth.test":
                return 200, {"ok": True, "user_id": "UBOT", "team_id": "T1"}, {}
            if method == "chat.postMessage":
                ts = f"{int(time.time())}.{next(self._ts):06d}"
                text = str(body.get("text", ""))
                message = SlackMessage(
                    channel=str(body["channel"]),
                    ts=ts,
                    thread_ts=str(body.get("thread_ts") or ""),
                    text=text,
                    blocks=list(body.get("blocks") or []),
                    edits=[text],
                )
                self.messages.append(message)
                return 200, {"ok": True, "channel": message.channel, "ts": ts}, {}
            if method == "chat.update":
                found = next(
                    (
                        m
                        for m in self.messages
                        if m.channel == body.get("channel") and m.ts == body.get("ts")
                    ),
                    None,
                )
                if found is None:
                    return 200, {"ok": False, "error": "message_not_found"}, {}
                found.text = str(body.get("text", ""))
                if "blocks" in body:
                    found.blocks = list(body.get("blocks") or [])
                found.edits.append(found.text)
                return 200, {"ok": True, "channel": found.channel, "ts": found.ts}, {}
            return 200, {"ok": False, "error": "unknown_method"}, {}

    def handler(self) -> type[PlatformHandler]:
        slack = self

        class Handler(PlatformHandler):
            def do_GET(self) -> None:
                content = slack.files.get(self.path.removeprefix("/files/"))
                if not self.path.startswith("/files/") or content is None:
                    return self.reply(404, b"")
                if self.bearer() != slack.token:
                    return self.reply(404, b"")
                return self.reply(200, content)

            def do_POST(self) -> None:
                body = self.body()
                if isinstance(body.get("blocks"), str):  # the form encoding's JSON field
                    body["blocks"] = json.loads(body["blocks"])
                method = self.path.removeprefix("/api/")
                self.reply(*slack.call(method, self.bearer(), body))

        return Handler


_event_ids = itertools.count(1)


def slack_event_body(event: dict[str, Any]) -> bytes:
    """An Events API callback around ``event``, as Slack POSTs it."""
    return json.dumps(
        {
            "token": "unused-verification-token",
            "team_id": "T1",
            "api_app_id": "A1",
            "type": "event_callback",
            "event_id": f"Ev{next(_event_ids):08d}",
            "event_time": int(time.time()),
            "event": event,
        }
    ).encode()


def slack_signed_headers(
    body: bytes, *, secret: str = SIGNING_SECRET, timestamp: int | None = None
) -> dict[str, str]:
    stamp = str(int(time.time()) if timestamp is None else timestamp)
    signature = SignatureVerifier(secret).generate_signature(timestamp=stamp, body=body)
    assert signature is not None
    return {
        "X-Slack-Request-Timestamp": stamp,
        "X-Slack-Signature": signature,
        "Content-Type": "application/json",
    }


def slack_mention(
    *, channel: str, ts: str, text: str, user: str = "UVISITOR", thread_ts: str = ""
) -> dict[str, Any]:
    event: dict[str, Any] = {
        "type": "app_mention",
        "channel": channel,
        "user": user,
        "ts": ts,
        "text": f"<@UBOT> {text}",
    }
    if thread_ts:
        event["thread_ts"] = thread_ts
    return event


def slack_thread_reply(
    *, channel: str, ts: str, thread_ts: str, text: str, user: str = "UVISITOR"
) -> dict[str, Any]:
    return {
        "type": "message",
        "channel": channel,
        "channel_type": "channel",
        "user": user,
        "ts": ts,
        "thread_ts": thread_ts,
        "text": text,
    }
