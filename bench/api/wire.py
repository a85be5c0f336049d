"""A lean SSE client for the load generator: HTTP/1.1 on asyncio streams, one keep-alive connection per client.

httpx with httpx-sse (what programs use, and what the test suite reads streams with) parses in pure
Python (h11): on this 2-core VM it added ~20 ms to a sequential first event (request built and sent
~13 ms, the event parsed ~6 ms; a raw socket saw p50 21 ms where httpx saw 42 ms) and 8–13 ms of CPU
per turn that Parley's processes then lacked. This client sends a prepared request and parses only what
the bench reads: the status, the chunked body, and SSE ``event:``/``data:`` lines. bench/api measures
with it and also prints the sequential first event as httpx-sse sees it.
"""

from __future__ import annotations

import asyncio
import codecs
import json
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass
from urllib.parse import urlsplit


class WireError(Exception):
    """The server answered something this client does not read (not 200, not chunked, a broken frame)."""


@dataclass(frozen=True)
class SseEvent:
    event: str
    data: str


class SseParser:
    """SSE framing (the subset Parley sends): events end at a blank line; comments and ids are skipped."""

    def __init__(self) -> None:
        self._buffer = ""
        self._decoder = codecs.getincrementaldecoder(
            "utf-8"
        )()  # a character may straddle two chunks

    def feed(self, data: bytes) -> list[SseEvent]:
        self._buffer += self._decoder.decode(data)
        *blocks, self._buffer = self._buffer.split("\n\n")
        events = []
        for block in blocks:
            name, data = "message", []
            for line in block.split("\n"):
                field, _, value = line.partition(":")
                value = value.removeprefix(" ")
                if field == "event":
                    name = value
                elif field == "data":
                    data.append(value)
            if data:
                events.append(SseEvent(name, "\n".join(data)))
        return events


class WireClient:
    """POSTs JSON and yields the SSE events of the response, over one reused connection."""

    def __init__(self, base_url: str, headers: dict[str, str]) -> None:
        parts = urlsplit(base_url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.headers = headers
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._reader = self._writer = None

    async def post_events(self, path: str, body: dict[str, object]) -> AsyncIterator[SseEvent]:
        """The response's events, then the end of the response (so the connection can be reused)."""
        reader, writer = await self._connection()
        payload = json.dumps(body).encode()
        head = "".join(f"{name}: {value}\r\n" for name, value in self.headers.items())
        writer.write(
            f"POST {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n{head}Content-Type: application/json\r\n"
            f"Accept: text/event-stream\r\nContent-Length: {len(payload)}\r\n\r\n".encode()
            + payload
        )
        try:
            status, headers = await _head(reader)
            if status != 200 or headers.get("transfer-encoding") != "chunked":
                raise WireError(f"HTTP {status}: {(await _body(reader, headers))[:120]!r}")
            parser = SseParser()
            while chunk := await _chunk(reader):
                for event in parser.feed(chunk):
                    yield event
        except BaseException:
            await self.close()  # a response left half-read cannot carry the next request
            raise

    async def _connection(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self._reader is None or self._writer is None:
            self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
            self._writer.get_extra_info("socket").setsockopt(
                socket.IPPROTO_TCP, socket.TCP_NODELAY, 1
            )
        return self._reader, self._writer


async def _head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    lines = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name:
            headers[name.strip().lower()] = value.strip()
    return status, headers


async def _body(reader: asyncio.StreamReader, headers: dict[str, str]) -> bytes:
    if "content-length" in headers:
        return await reader.readexactly(int(headers["content-length"]))
    parts = []
    while chunk := await _chunk(reader):
        parts.append(chunk)
    return b"".join(parts)


async def _chunk(reader: asyncio.StreamReader) -> bytes:
    """One chunk of a chunked body; b"" at its end (trailers are not used by uvicorn)."""
    size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
    data = await reader.readexactly(size + 2)
    if data[-2:] != b"\r\n":
        raise WireError("a chunk does not end with CRLF")
    return data[:-2]
