"""bench/cluster's visitor gives a message up at its deadline (issue 51, finding 6: a stream that only sent
heartbeats held the run for 20 minutes), and sends it again when its stream says the answer was interrupted."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from bench.cluster.clients import VisitorMessage, message_send

HEADERS = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nX-Parley-Stream-Id: s1\r\n"
    b"Connection: close\r\n\r\n"
)
INTERRUPTED = b'id: 1-0\nevent: error\ndata: {"code":"stream_interrupted"}\n\n'
ANSWER = b'id: 2-0\nevent: tool_end\ndata: {"turn_id":"t1"}\n\n'


@pytest.fixture
def sse_server() -> Iterator[tuple[str, list[bytes]]]:
    """A raw HTTP server: its first answer is `script[0]` then heartbeats forever, the next `script[1]`..."""
    listener = socket.create_server(("127.0.0.1", 0))
    script: list[bytes] = []
    requests: list[bytes] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            requests.append(conn.recv(65536).split(b"\r\n", 1)[0])
            body = script[min(len(requests), len(script)) - 1]
            try:
                conn.sendall(HEADERS + body)
                while body == b"":  # heartbeats only, until the client hangs up
                    time.sleep(0.1)
                    conn.sendall(b": heartbeat\n\n")
            except OSError:
                pass
            conn.close()

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}", script
    finally:
        listener.close()


async def _send(base: str, deadline: float) -> VisitorMessage:
    message = VisitorMessage(client_message_id="m1", conversation_id="c1")
    async with httpx.AsyncClient(base_url=base, timeout=httpx.Timeout(30.0)) as client:
        await message_send(client, headers={}, message=message, text="hi", deadline=deadline)
    return message


def _sent(base: str, deadline: float) -> VisitorMessage:
    """`_send` on a loop of its own, in a thread: the browser tests' Playwright leaves one running here."""
    with ThreadPoolExecutor(max_workers=1) as executor:
        return executor.submit(asyncio.run, _send(base, deadline=deadline)).result()


def test_a_message_whose_stream_only_beats_is_given_up_at_its_deadline(
    sse_server: tuple[str, list[bytes]],
) -> None:
    base, script = sse_server
    script.append(b"")
    started = time.monotonic()
    message = _sent(base, deadline=1.5)
    assert time.monotonic() - started < 5
    assert message.turn_ids == [] and message.errors[-1] == "no answer within 2 s"


def test_a_message_whose_answer_was_interrupted_is_sent_again(
    sse_server: tuple[str, list[bytes]],
) -> None:
    base, script = sse_server
    script += [INTERRUPTED, ANSWER]
    message = _sent(base, deadline=10)
    assert message.turn_ids == ["t1"] and message.posts == 2 and message.resumes == 0
