"""bench/api's lean SSE client reads what Parley's relay writes: chunked SSE, split anywhere, on a reused connection."""

from __future__ import annotations

import asyncio
import contextlib
import json
from concurrent.futures import ThreadPoolExecutor

from bench.api.load import turn_once_wire
from bench.api.wire import SseEvent, SseParser, WireClient

_EVENTS = (
    ": connected\n"
    'id: 1-0\nevent: tool_update\ndata: {"phase":"SEARCH_PREPARATION"}\n\n'
    'id: 2-0\nevent: tool_partial_update\ndata: {"content":"Bonjour, vélo ","output_key":"response"}\n\n'
    ": heartbeat\n\n"
    'id: 3-0.0\nevent: tool_end_delta_sse\ndata: {"seq":0,"total":2,"chunk":"{\\"a\\""}\n\n'
    'id: 3-0.1\nevent: tool_end_delta_sse\ndata: {"seq":1,"total":2,"chunk":":1}"}\n\n'
).encode()


def test_the_parser_joins_events_split_at_any_byte() -> None:
    for cut in range(1, len(_EVENTS)):
        parser = SseParser()
        events = parser.feed(_EVENTS[:cut]) + parser.feed(
            _EVENTS[cut:]
        )  # é is two bytes: some cuts split it
        assert [e.event for e in events] == [
            "tool_update",
            "tool_partial_update",
            *["tool_end_delta_sse"] * 2,
        ]
        assert json.loads(events[1].data)["content"] == "Bonjour, vélo "
    assert SseParser().feed(b"event: x\ndata: a\ndata: b\n\n") == [SseEvent("x", "a\nb")]


def test_turns_reuse_one_connection_and_an_error_status_is_reported() -> None:
    connections = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(writer)
        with contextlib.suppress(asyncio.IncompleteReadError):  # the client closed the connection
            await requests_answer(reader, writer)

    async def requests_answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while head := await reader.readuntil(b"\r\n\r\n"):
            length = int(
                next(
                    line
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length")
                )[15:]
            )
            body = json.loads(await reader.readexactly(length))
            if body["query"] == "refuse":
                error = b'{"code":"invalid_request"}'
                writer.write(
                    b"HTTP/1.1 400 Bad Request\r\nContent-Length: %d\r\n\r\n%s"
                    % (len(error), error)
                )
                continue
            writer.write(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
            )
            for start in range(0, len(_EVENTS), 7):  # small chunks, cut mid-line
                piece = _EVENTS[start : start + 7]
                writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            writer.write(b"0\r\n\r\n")
            await writer.drain()

    async def scenario() -> list:
        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        client = WireClient(f"http://127.0.0.1:{port}", {"Authorization": "Bearer k"})
        url = f"http://127.0.0.1:{port}/api/v1/rag_search"
        turns = [await turn_once_wire(client, url, {"query": q}) for q in ("a", "b", "refuse")]
        await client.close()
        server.close()
        return turns

    with ThreadPoolExecutor(
        max_workers=1
    ) as executor:  # a loop of its own: the browser tests leave one running
        first, second, refused = executor.submit(asyncio.run, scenario()).result()
    assert first.error is None and first.partials == 1 and 0 < first.first_event <= first.total
    assert second.error is None and second.total is not None
    assert refused.error is not None and refused.error.startswith("WireError: HTTP 400")
    assert len(connections) == 1  # both turns and the refusal went over one keep-alive connection
