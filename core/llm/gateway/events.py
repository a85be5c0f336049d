"""A streamed chat completion's server-sent events read as plain JSON chunks, its errors raised as the SDK's."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

import httpx2
import openai

from core.llm.lines import body_lines


def stream_chunks(
    reads: Iterable[bytes], *, request: httpx2.Request
) -> Iterator[list[dict[str, Any]]]:
    """The JSON chunks of a chat completion's server-sent events (its body's `reads`), up to `[DONE]`:
    one list per read, the chunks that read completed.

    An `error` chunk and a broken transport raise the SDK's own exceptions, so the retry policy
    classifies them as it does for every other call; the chunks read before it are handed over first.
    """
    data: list[str] = []  # the data lines of an event not ended yet (it may span reads)
    try:
        for lines in body_lines(reads):
            batch: list[dict[str, Any]] = []
            try:
                for payload in _event_payloads(lines, data):
                    if payload.startswith("[DONE]"):
                        if batch:
                            yield batch
                        return
                    batch.append(_chunk(payload, request))
            except openai.APIError:
                if batch:
                    yield batch
                raise
            if batch:
                yield batch
    except httpx2.TimeoutException as exc:
        raise openai.APITimeoutError(request=request) from exc
    except httpx2.TransportError as exc:
        raise openai.APIConnectionError(request=request) from exc


def _event_payloads(lines: list[str], data: list[str]) -> Iterator[str]:
    """The data of each event that `lines` end, its `data:` lines joined; `data` holds those of an
    event still open, from one read to the next. Other fields and comments are skipped."""
    for line in lines:
        if line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
        elif not line and data:  # a blank line ends the event
            yield "\n".join(data)
            data.clear()


def _chunk(payload: str, request: httpx2.Request) -> dict[str, Any]:
    """One event's data as a chunk; an `error` chunk or data that is not a JSON object raise."""
    try:
        chunk = json.loads(payload)
    except ValueError:
        raise openai.APIError(
            "the stream sent a chunk that is not JSON", request, body=payload
        ) from None
    if not isinstance(chunk, dict):
        raise openai.APIError(
            "the stream sent a chunk that is not a JSON object", request, body=payload
        )
    if chunk.get("error"):
        error = chunk["error"]
        message = error.get("message") if isinstance(error, dict) else None
        raise openai.APIError(
            str(message or "An error occurred during streaming"), request, body=error
        )
    return chunk
