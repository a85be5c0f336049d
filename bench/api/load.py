"""The load generator: concurrent streaming clients (bench.api.wire or httpx-sse), each turn's first event and end."""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx
from httpx_sse import aconnect_sse

from bench.api.wire import WireClient, WireError


@dataclass
class Turn:
    first_event: float | None = None  # seconds from sending the request to the first SSE event
    total: float | None = None  # seconds to tool_end
    partials: int = 0  # tool_partial_update events received
    error: str | None = None


@dataclass
class Level:
    concurrency: int
    elapsed: float
    turns: list[Turn] = field(default_factory=list)

    @property
    def ok(self) -> list[Turn]:
        return [turn for turn in self.turns if turn.error is None]

    @property
    def errors(self) -> list[str]:
        return [turn.error for turn in self.turns if turn.error is not None]

    @property
    def rate(self) -> float:
        return len(self.ok) / self.elapsed if self.elapsed else 0.0


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


Events = AsyncIterator[tuple[str, str]]  # (event name, data) of one SSE response, to its end


async def turn_read(events: Events, started: float) -> Turn:
    """Times one streamed turn from its events (read to the end, so a keep-alive connection can be reused)."""
    turn = Turn()
    async for event, data in events:
        now = time.perf_counter()
        if turn.first_event is None:
            turn.first_event = now - started
        if event == "tool_partial_update":
            turn.partials += 1
        elif event == "error":
            turn.error = turn.error or f"error event: {data[:120]}"
        elif turn.total is None and (
            event == "tool_end" or (event == "tool_end_delta_sse" and _last_piece(data))
        ):
            turn.total = now - started
    if turn.error is None and turn.total is None:
        turn.error = "the stream ended without tool_end"
    return turn


async def turn_once_httpx(
    client: httpx.AsyncClient, url: str, headers: dict[str, str], body: dict[str, Any]
) -> Turn:
    """A turn read with httpx and httpx-sse, as a program would."""
    started = time.perf_counter()
    try:
        async with aconnect_sse(
            client, "POST", url, json=body, headers=dict(headers)
        ) as source:  # it sets Accept
            if source.response.status_code != 200:
                await source.response.aread()
                return Turn(
                    error=f"HTTP {source.response.status_code}: {source.response.text[:120]}"
                )
            return await turn_read(((e.event, e.data) async for e in source.aiter_sse()), started)
    except (httpx.HTTPError, OSError) as exc:
        return Turn(error=f"{type(exc).__name__}: {exc}")


async def turn_once_wire(client: WireClient, url: str, body: dict[str, Any]) -> Turn:
    """A turn read with the lean client (bench.api.wire)."""
    started = time.perf_counter()
    try:
        return await turn_read(
            ((e.event, e.data) async for e in client.post_events(urlsplit(url).path, body)), started
        )
    except (WireError, OSError, asyncio.IncompleteReadError) as exc:
        return Turn(error=f"{type(exc).__name__}: {exc}")


def _last_piece(data: str) -> bool:
    piece = json.loads(data)
    return piece["seq"] == piece["total"] - 1


async def level_run(
    *,
    requests: list[tuple[str, dict[str, Any]]],
    headers: dict[str, str],
    concurrency: int,
    rounds: int,
    client: str = "wire",
) -> Level:
    """`concurrency` clients, each running `rounds` turns back to back; turn n of client i sends request i*rounds+n.

    client "wire": each client holds one connection of the lean client; "httpx": they share an httpx pool."""
    limits = httpx.Limits(
        max_connections=concurrency + 4, max_keepalive_connections=concurrency + 4
    )
    timeout = httpx.Timeout(120.0, connect=10.0)
    base_url = "{0.scheme}://{0.netloc}".format(urlsplit(requests[0][0]))
    async with httpx.AsyncClient(limits=limits, timeout=timeout) as shared:

        async def client_loop(index: int) -> list[Turn]:
            turns = []
            wire = WireClient(base_url, headers)
            try:
                for n in range(rounds):
                    url, body = requests[(index * rounds + n) % len(requests)]
                    if client == "wire":
                        turns.append(await turn_once_wire(wire, url, body))
                    else:
                        turns.append(await turn_once_httpx(shared, url, headers, body))
            finally:
                await wire.close()
            return turns

        started = time.perf_counter()
        per_client = await asyncio.gather(*(client_loop(index) for index in range(concurrency)))
        elapsed = time.perf_counter() - started
    return Level(
        concurrency=concurrency,
        elapsed=elapsed,
        turns=[turn for turns in per_client for turn in turns],
    )


async def plain_requests(*, url: str, headers: dict[str, str], count: int) -> list[float]:
    """Seconds per sequential GET: the floor any authenticated request pays (uvicorn, Django, key check)."""
    seconds = []
    async with httpx.AsyncClient(timeout=httpx.Timeout(30.0)) as client:
        for _ in range(count):
            started = time.perf_counter()
            response = await client.get(url, headers={**headers, "Accept": "application/json"})
            response.raise_for_status()
            seconds.append(time.perf_counter() - started)
    return seconds


async def json_requests(
    *, requests: list[tuple[str, dict[str, Any]]], headers: dict[str, str]
) -> list[float]:
    """Seconds per sequential POST answered as one JSON body (``stream: false``)."""
    seconds = []
    async with httpx.AsyncClient(timeout=httpx.Timeout(60.0)) as client:
        for url, body in requests:
            started = time.perf_counter()
            response = await client.post(
                url,
                json={**body, "stream": False},
                headers={**headers, "Accept": "application/json"},
            )
            response.raise_for_status()
            seconds.append(time.perf_counter() - started)
    return seconds
