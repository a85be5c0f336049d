"""A scripted OpenAI-compatible HTTP server for tests, reached through the real `openai` client.

Each test queues the replies it wants (content, delays, hangs, HTTP errors, a 400 on
response_format, streams cut or reset mid-answer) and then reads back the requests the server received.
It serves /v1/chat/completions (SSE streaming or not; image inputs read back with
`ReceivedRequest.images`), /v1/embeddings (deterministic vectors, or the scripted errors of
`enqueue_embeddings`) and /v1/audio/transcriptions (multipart uploads; the segments scripted with
`enqueue_transcriptions`).
"""

from __future__ import annotations

import base64
import email.parser
import email.policy
import hashlib
import json
import math
import re
import socket
import struct
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.processes import free_port

REPLY_TOKENS = re.compile(r"\S+\s*|\s+")
PAUSE_LIMIT_SECONDS = 60.0


@dataclass
class Reply:
    """One scripted answer to one request."""

    content: str = ""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    error_message: str = ""
    # Seconds between streamed tokens, paced from the stream's start as a model's steady rate (a token
    # sent late does not push back the ones after it); and before any byte is sent (a hang past the
    # client's timeout).
    token_delay: float = 0.0
    hang: float = 0.0
    # Answer 400 when the request carries any of these fields (response_format, stream_options),
    # as some OpenAI-compatible endpoints do.
    reject_fields: tuple[str, ...] = ()
    finish_reason: str = "stop"
    # Drop the connection after this many streamed tokens (a stream broken mid-answer).
    cut_after: int | None = None
    # Reset the connection (a TCP RST, as from a crashed proxy) after this many streamed tokens.
    reset_after: int | None = None
    # After this many streamed tokens, send this raw `data:` payload and end the stream (an error event
    # as some endpoints send mid-stream, or a line that is not JSON).
    raw_after: int | None = None
    raw_data: str = '{"error": {"message": "the model is overloaded", "type": "server_error"}}'
    # Hold the stream after this many tokens until `resume` is set (at most a minute): lets a test
    # look at a half-streamed answer, then let it finish.
    pause_after: int | None = None
    resume: threading.Event | None = None
    # Before the streamed token of this index, stall for these seconds (a model that slows down): a
    # relay that throttles its edits has its next edit due when that token arrives, so what it shows
    # during a later `pause_after` is known without waiting the pause out.
    lull: tuple[int, float] | None = None
    prompt_tokens: int = 11
    completion_tokens: int | None = None
    # The content computed from the request's body instead (a model that answers what it is asked).
    responder: Callable[[dict[str, Any]], str] | None = None

    @classmethod
    def json(cls, obj: object, **kwargs: Any) -> Reply:
        return cls(content=json.dumps(obj, ensure_ascii=False), **kwargs)

    @classmethod
    def error(cls, status: int, message: str = "scripted error", **kwargs: Any) -> Reply:
        return cls(status=status, error_message=message, **kwargs)

    @classmethod
    def rate_limited(cls, retry_after: str = "1") -> Reply:
        return cls(status=429, error_message="rate limited", headers={"Retry-After": retry_after})

    @classmethod
    def hanging(cls, seconds: float) -> Reply:
        return cls(content="{}", hang=seconds)

    @classmethod
    def transcription(
        cls, segments: list[tuple[float, float, str]], language: str = "english"
    ) -> Reply:
        """A verbose_json transcription: the segments' (start, end, text), as Whisper's API returns them."""
        body = {
            "task": "transcribe",
            "language": language,
            "duration": max((end for _, end, _ in segments), default=0.0),
            "text": " ".join(text for _, _, text in segments),
            "segments": [
                {
                    "id": n,
                    "start": start,
                    "end": end,
                    "text": text,
                    "seek": 0,
                    "tokens": [],
                    "temperature": 0.0,
                    "avg_logprob": -0.2,
                    "compression_ratio": 1.0,
                    "no_speech_prob": 0.01,
                }
                for n, (start, end, text) in enumerate(segments)
            ],
        }
        return cls.json(body)


@dataclass
class ReceivedRequest:
    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    at: float

    @property
    def messages(self) -> list[dict[str, str]]:
        return list(self.body.get("messages", []))

    @property
    def images(self) -> list[bytes]:
        """The images of a chat request's `image_url` parts (data URLs), decoded."""
        found = []
        for message in self.body.get("messages", []):
            content = message.get("content")
            for part in content if isinstance(content, list) else []:
                url = (part.get("image_url") or {}).get("url", "")
                if part.get("type") == "image_url" and url.startswith("data:"):
                    found.append(base64.b64decode(url.partition(",")[2]))
        return found


class ScriptedLLMServer:
    """The server and its script. `base_url` ends in /v1, as the openai client expects."""

    def __init__(self) -> None:
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.replies: deque[Reply] = deque()
        # Optional script of /v1/embeddings answers (errors, mostly); when empty, embeddings always succeed.
        self.embedding_replies: deque[Reply] = deque()
        self.transcription_replies: deque[Reply] = deque()
        self.requests: list[ReceivedRequest] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        handler = type("Handler", (_Handler,), {"script": self})
        self._httpd = _QuietServer(("127.0.0.1", self.port), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, name="scripted-llm", daemon=True
        )

    def start(self) -> ScriptedLLMServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()  # wakes hanging replies
        self._httpd.shutdown()
        self._httpd.server_close()

    def enqueue(self, *replies: Reply) -> None:
        with self._lock:
            self.replies.extend(replies)

    def enqueue_embeddings(self, *replies: Reply) -> None:
        with self._lock:
            self.embedding_replies.extend(replies)

    def enqueue_transcriptions(self, *replies: Reply) -> None:
        with self._lock:
            self.transcription_replies.extend(replies)

    def transcription_requests(self) -> list[ReceivedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/audio/transcriptions")]

    def reset(self) -> None:
        with self._lock:
            self.replies.clear()
            self.embedding_replies.clear()
            self.transcription_replies.clear()
            self.requests.clear()

    def chat_requests(self) -> list[ReceivedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def embedding_requests(self) -> list[ReceivedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/embeddings")]

    def _record(self, request: ReceivedRequest) -> Reply | None:
        with self._lock:
            self.requests.append(request)
            return self.replies.popleft() if self.replies else None

    def _record_transcription(self, request: ReceivedRequest) -> Reply | None:
        with self._lock:
            self.requests.append(request)
            return self.transcription_replies.popleft() if self.transcription_replies else None

    def _record_embeddings(self, request: ReceivedRequest) -> Reply | None:
        with self._lock:
            self.requests.append(request)
            return self.embedding_replies.popleft() if self.embedding_replies else None

    def wait(self, seconds: float) -> None:
        self._stop.wait(seconds)

    def wait_for(self, event: threading.Event, seconds: float) -> None:
        """Until `event` is set, the server stops, or `seconds` pass."""
        deadline = time.monotonic() + seconds
        while not (event.is_set() or self._stop.is_set()) and time.monotonic() < deadline:
            event.wait(0.05)


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        """A client that timed out and hung up is part of the script, not a server failure."""
        if not isinstance(sys.exc_info()[1], BrokenPipeError | ConnectionResetError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


class _Handler(BaseHTTPRequestHandler):
    script: ScriptedLLMServer

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: tests read the recorded requests instead."""

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if self.path.endswith("/audio/transcriptions"):
            self._transcribe(raw)
            return
        body = json.loads(raw or b"{}")
        request = ReceivedRequest(
            self.path, body, {k.lower(): v for k, v in self.headers.items()}, time.monotonic()
        )
        if self.path.endswith("/embeddings"):
            scripted = self.script._record_embeddings(request)
            if scripted is not None and scripted.status != 200:
                error = {"error": {"message": scripted.error_message, "type": "scripted"}}
                self._send_json(scripted.status, error, scripted.headers)
                return
            self._send_json(200, _embeddings(body))
            return
        if not self.path.endswith("/chat/completions"):
            self._send_json(
                404, {"error": {"message": f"no route {self.path}", "type": "not_found"}}
            )
            return
        reply = self.script._record(request)
        if reply is not None and reply.responder is not None:
            reply = replace(reply, content=reply.responder(body))
        if reply is None:
            # 418 is a permanent error for the gateway: a test that forgot to script fails fast.
            self._send_json(
                418, {"error": {"message": "no scripted reply left", "type": "test_script"}}
            )
            return
        if reply.hang:
            self.script.wait(reply.hang)
        if rejected := [name for name in reply.reject_fields if name in body]:
            message = f"unsupported parameter: {rejected[0]}"
            self._send_json(400, {"error": {"message": message, "type": "invalid_request_error"}})
            return
        if reply.status != 200:
            self._send_json(
                reply.status,
                {"error": {"message": reply.error_message, "type": "scripted"}},
                reply.headers,
            )
            return
        if body.get("stream"):
            self._stream(body, reply)
        else:
            self._send_json(200, _completion(body, reply), reply.headers)

    def _transcribe(self, raw: bytes) -> None:
        """A multipart upload: its fields (repeated ones as lists) and its file's name and bytes."""
        head = f"Content-Type: {self.headers.get('Content-Type', '')}\r\n\r\n".encode()
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + raw)
        body: dict[str, Any] = {}
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            payload = part.get_payload(decode=True) or b""
            if part.get_filename():
                body[str(name)] = {"filename": part.get_filename(), "data": payload}
            elif str(name).endswith("[]"):
                body.setdefault(str(name)[:-2], []).append(payload.decode())
            else:
                body[str(name)] = payload.decode()
        request = ReceivedRequest(
            self.path, body, {k.lower(): v for k, v in self.headers.items()}, time.monotonic()
        )
        reply = self.script._record_transcription(request)
        if reply is None:
            self._send_json(
                418, {"error": {"message": "no scripted reply left", "type": "test_script"}}
            )
        elif reply.status != 200:
            error = {"error": {"message": reply.error_message, "type": "scripted"}}
            self._send_json(reply.status, error, reply.headers)
        else:
            self._send_json(200, json.loads(reply.content))

    def _send_json(
        self, status: int, payload: object, headers: dict[str, str] | None = None
    ) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, body: dict[str, Any], reply: Reply) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        model = body.get("model", "scripted")
        tokens = REPLY_TOKENS.findall(reply.content)
        try:
            self._event(_chunk(model, {"role": "assistant", "content": ""}, None))
            paced_from = time.monotonic()
            for index, token in enumerate(tokens):
                if reply.cut_after is not None and index >= reply.cut_after:
                    self.close_connection = True
                    return
                if reply.reset_after is not None and index >= reply.reset_after:
                    self._reset()
                    return
                if reply.raw_after is not None and index >= reply.raw_after:
                    self.wfile.write(b"data: " + reply.raw_data.encode() + b"\n\n")
                    self.wfile.flush()
                    self.close_connection = True
                    return
                if index == reply.pause_after and reply.resume is not None:
                    self.script.wait_for(reply.resume, PAUSE_LIMIT_SECONDS)
                    paced_from = time.monotonic() - index * reply.token_delay
                if reply.lull is not None and index == reply.lull[0]:
                    self.script.wait(reply.lull[1])
                    paced_from += reply.lull[1]
                if reply.token_delay:
                    self.script.wait(
                        max(0.0, paced_from + (index + 1) * reply.token_delay - time.monotonic())
                    )
                self._event(_chunk(model, {"content": token}, None))
            self._event(_chunk(model, {}, reply.finish_reason))
            if (body.get("stream_options") or {}).get("include_usage"):
                usage = _usage(reply, len(tokens))
                self._event({**_chunk(model, {}, None), "choices": [], "usage": usage})
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            return  # the client gave up (a timeout test)

    def _reset(self) -> None:
        """Close with SO_LINGER 0: the kernel sends RST instead of FIN, and the client's read fails."""
        self.close_connection = True
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()

    def _event(self, payload: dict[str, Any]) -> None:
        self.wfile.write(b"data: " + json.dumps(payload).encode() + b"\n\n")
        self.wfile.flush()


def _usage(reply: Reply, token_count: int) -> dict[str, int]:
    completion = reply.completion_tokens if reply.completion_tokens is not None else token_count
    return {
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": completion,
        "total_tokens": reply.prompt_tokens + completion,
    }


def _chunk(model: str, delta: dict[str, str], finish_reason: str | None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }


def _completion(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "scripted"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply.content},
                "finish_reason": reply.finish_reason,
            }
        ],
        "usage": _usage(reply, len(REPLY_TOKENS.findall(reply.content))),
    }


def _embeddings(body: dict[str, Any]) -> dict[str, Any]:
    """Deterministic unit vectors from a hash of each input: same text, same vector."""
    inputs = body.get("input", [])
    inputs = [inputs] if isinstance(inputs, str) else inputs
    dimensions = int(body.get("dimensions") or 16)
    data = []
    for index, text in enumerate(inputs):
        digest = hashlib.sha256(str(text).encode()).digest()
        raw = [digest[i % len(digest)] - 127.5 for i in range(dimensions)]
        norm = math.sqrt(sum(x * x for x in raw)) or 1.0
        data.append({"object": "embedding", "index": index, "embedding": [x / norm for x in raw]})
    return {
        "object": "list",
        "data": data,
        "model": body.get("model", "scripted"),
        "usage": {"prompt_tokens": len(inputs), "total_tokens": len(inputs)},
    }
