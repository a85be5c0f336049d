"""The cluster run's clients, through the load balancer: visitors streaming answers with widget.js's
retry policy, and an uploader that sends each document again until it is acknowledged (its
Idempotency-Key makes a second creation impossible).

widget.js's policy, step for step (`send()`): a message keeps its client_message_id across every
attempt, at most six, 300 ms x the attempt apart. No stream yet (the connection failed, or a 5xx from
the balancer): the message is sent again, and the server answers that id once (a turn is unique per
conversation and client_message_id). A stream that breaks: resumed after the last event id
(`GET /api/v1/streams/<id>/events`). A stream that is gone (`stream_expired`, or a 4xx on resuming):
the message is sent again, and the server replays the turn; so is one whose answer was interrupted
(`stream_interrupted`: its runner never started or its worker died).

Each message is bounded as a person's patience is: past `MESSAGE_DEADLINE` seconds without its answer
it is given up and counted lost (a stream that only sends heartbeats no longer holds the run forever).
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
from httpx_sse import SSEError, aconnect_sse

ATTEMPTS = 6  # widget.js: attempts 0 to 5
MESSAGE_DEADLINE = (
    120.0  # seconds from a message's first send to its answer, every attempt included
)
RESENT_CODES = (
    "stream_expired",
    "stream_interrupted",
)  # the stream cannot give the answer: ask again
UPLOAD_ATTEMPTS = 12
RETRYABLE = (httpx.TransportError, SSEError)


@dataclass
class VisitorMessage:
    client_message_id: str
    conversation_id: str
    sent_at: float = 0.0
    first_event: float | None = None  # seconds from the first send to the first event
    total: float | None = None  # seconds from the first send to the answer
    turn_ids: list[str] = field(default_factory=list)  # one per answer received (tool_end)
    posts: int = 0
    resumes: int = 0
    errors: list[str] = field(default_factory=list)


class _Broken(Exception):
    """This attempt got no answer (the reason is kept on the message)."""


@dataclass
class _Stream:
    id: str | None = None
    last_event: str | None = None

    def forget(self) -> None:
        self.id = self.last_event = None


async def _read(events: Any, message: VisitorMessage, stream: _Stream) -> bool:
    """Reads one response's events; True once the answer (tool_end) came."""
    async for event in events.aiter_sse():
        if message.first_event is None:
            message.first_event = time.perf_counter() - message.sent_at
        if event.id:
            stream.last_event = event.id
        if event.event == "tool_end":
            message.turn_ids.append(str(json.loads(event.data).get("turn_id", "")))
            message.total = time.perf_counter() - message.sent_at
            return True
        if event.event == "error":
            code = json.loads(event.data).get("code", "error")
            message.errors.append(f"error event: {code}")
            if code in RESENT_CODES:
                stream.forget()  # cannot be resumed: ask again, the server replays or answers the turn
            raise _Broken(code)
    return False  # the stream ended before its answer: resumed


async def _attempt(
    client: httpx.AsyncClient,
    *,
    headers: dict[str, str],
    message: VisitorMessage,
    text: str,
    stream: _Stream,
) -> bool:
    """One POST or resume; True once answered, False to try again; raises _Broken to give up."""
    if stream.id is None:
        message.posts += 1
        body = {"message": text, "client_message_id": message.client_message_id, "stream": True}
        path, method, sent = (
            f"/api/v1/conversations/{message.conversation_id}/turns",
            "POST",
            headers,
        )
    else:
        message.resumes += 1
        path, method, body = f"/api/v1/streams/{stream.id}/events", "GET", None
        sent = {**headers, **({"Last-Event-ID": stream.last_event} if stream.last_event else {})}
    async with aconnect_sse(client, method, path, headers=sent, json=body) as events:
        status = events.response.status_code
        if status != 200:
            await events.response.aread()
            message.errors.append(f"HTTP {status}")
            if status >= 500:
                return False
            if stream.id is None:
                raise _Broken(f"refused: HTTP {status}")
            stream.forget()  # the stream is gone: the message is sent again
            return False
        stream.id = events.response.headers.get("X-Parley-Stream-Id") or stream.id
        return await _read(events, message, stream)


async def message_send(
    client: httpx.AsyncClient,
    *,
    headers: dict[str, str],
    message: VisitorMessage,
    text: str,
    deadline: float = MESSAGE_DEADLINE,
) -> None:
    """One visitor message, to its answer, to widget.js's last attempt, or to its deadline."""
    message.sent_at = time.perf_counter()
    try:
        await asyncio.wait_for(
            _attempts(client, headers=headers, message=message, text=text), deadline
        )
    except TimeoutError:
        message.errors.append(f"no answer within {deadline:.0f} s")


async def _attempts(
    client: httpx.AsyncClient, *, headers: dict[str, str], message: VisitorMessage, text: str
) -> None:
    stream = _Stream()
    for attempt in range(ATTEMPTS):
        if attempt:
            await asyncio.sleep(0.3 * attempt)
        try:
            if await _attempt(client, headers=headers, message=message, text=text, stream=stream):
                return
        except RETRYABLE as exc:
            message.errors.append(type(exc).__name__)
        except _Broken as exc:
            if str(exc).startswith("refused"):
                return


async def visitors_run(
    *,
    base_url: str,
    headers: dict[str, str],
    conversations: Sequence[str],
    questions: Sequence[str],
    turns: int,
    messages: list[VisitorMessage] | None = None,
    message_deadline: float = MESSAGE_DEADLINE,
) -> list[VisitorMessage]:
    """One visitor per conversation, all at once, each sending `turns` messages one after another.
    Each message joins `messages` (a new list unless given) when it is first sent, so a caller can
    follow the load as it goes."""
    limits = httpx.Limits(max_connections=len(conversations) + 8)
    timeout = httpx.Timeout(120.0, connect=10.0)
    messages = [] if messages is None else messages
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=timeout) as client:

        async def visitor(index: int, conversation: str) -> None:
            for n in range(turns):
                message = VisitorMessage(
                    client_message_id=str(uuid.uuid4()), conversation_id=conversation
                )
                messages.append(message)
                text = questions[(index * turns + n) % len(questions)]
                await message_send(
                    client, headers=headers, message=message, text=text, deadline=message_deadline
                )

        await asyncio.gather(*(visitor(i, c) for i, c in enumerate(conversations)))
    return messages


@dataclass
class Uploads:
    created: dict[str, str] = field(default_factory=dict)  # title -> document id
    lost: int = 0  # attempts whose answer never came (the document may or may not exist)
    replayed: int = 0  # uploads sent again that the server answered with the first one's document
    failed: list[str] = field(default_factory=list)


async def documents_upload(
    *,
    base_url: str,
    headers: dict[str, str],
    documents: Sequence[tuple[str, str]],
    bot_id: str,
    concurrency: int = 8,
    uploads: Uploads | None = None,
) -> Uploads:
    """Each (title, text) through POST /api/v1/documents, `concurrency` at a time, with an
    Idempotency-Key of its own: an upload whose answer was lost is simply sent again. Each outcome
    joins `uploads` (new unless given) as it comes, so a caller that gives up keeps what was done."""
    uploads = Uploads() if uploads is None else uploads
    queue: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
    for document in documents:
        queue.put_nowait(document)
    async with httpx.AsyncClient(base_url=base_url, timeout=httpx.Timeout(60.0)) as client:

        async def upload(title: str, text: str) -> None:
            sent = {**headers, "Accept": "application/json", "Idempotency-Key": str(uuid.uuid4())}
            body = {"title": title, "text": text, "bot_ids": [bot_id]}
            for attempt in range(UPLOAD_ATTEMPTS):
                try:
                    response = await client.post("/api/v1/documents", headers=sent, json=body)
                except httpx.TransportError:
                    uploads.lost += 1
                else:
                    if response.status_code < 500:
                        if response.status_code not in (200, 201):
                            uploads.failed.append(f"{title}: HTTP {response.status_code}")
                            return
                        uploads.replayed += response.headers.get("Idempotent-Replayed") == "true"
                        uploads.created[title] = str(response.json()["documents"][0]["id"])
                        return
                    uploads.lost += 1  # 502: the balancer lost the web process mid-request
                await asyncio.sleep(min(3.0, 0.3 * (attempt + 1)))
            uploads.failed.append(f"{title}: no answer after {UPLOAD_ATTEMPTS} attempts")

        async def uploader() -> None:
            while not queue.empty():
                await upload(*queue.get_nowait())

        await asyncio.gather(*(uploader() for _ in range(concurrency)))
    return uploads
