"""The load generator: concurrent streaming clients over httpx, timing each turn's first event and end."""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
from httpx_sse import aconnect_sse


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


async def turn_once(client: httpx.AsyncClient, url: str, headers: dict[str, str], body: dict[str, Any]) -> Turn:
    turn = Turn()
    started = time.perf_counter()
    try:
        async with aconnect_sse(client, "POST", url, json=body, headers=dict(headers)) as source:  # it sets Accept
            if source.response.status_code != 200:
                await source.response.aread()
                return Turn(error=f"HTTP {source.response.status_code}: {source.response.text[:120]}")
            async for event in source.aiter_sse():
                if turn.first_event is None:
                    turn.first_event = time.perf_counter() - started
                if event.event == "tool_partial_update":
                    turn.partials += 1
                if event.event == "error":
                    return Turn(error=f"error event: {event.data[:120]}")
                if event.event == "tool_end" or (event.event == "tool_end_delta_sse" and _last_piece(event.data)):
                    turn.total = time.perf_counter() - started
                    return turn
        return Turn(error="the stream ended without tool_end")
    except (httpx.HTTPError, OSError) as exc:
        return Turn(error=f"{type(exc).__name__}: {exc}")


def _last_piece(data: str) -> bool:
    piece = json.loads(data)
    return piece["seq"] == piece["total"] - 1


async def level_run(
    *, requests: list[tuple[str, dict[str, Any]]], headers: dict[str, str], concurrency: int, rounds: int
) -> Level:
    """`concurrency` clients, each running `rounds` turns back to back; turn n of client i sends request i*rounds+n."""
    limits = httpx.Limits(max_connections=concurrency + 4, max_keepalive_connections=concurrency + 4)
    timeout = httpx.Timeout(120.0, connect=10.0)
    async with httpx.AsyncClient(limits=limits, timeout=timeout) as client:

        async def client_loop(index: int) -> list[Turn]:
            turns = []
            for n in range(rounds):
                url, body = requests[(index * rounds + n) % len(requests)]
                turns.append(await turn_once(client, url, headers, body))
            return turns

        started = time.perf_counter()
        per_client = await asyncio.gather(*(client_loop(index) for index in range(concurrency)))
        elapsed = time.perf_counter() - started
    return Level(concurrency=concurrency, elapsed=elapsed, turns=[turn for turns in per_client for turn in turns])


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
