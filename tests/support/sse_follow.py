"""An SSE client that behaves as Parley's widget does: it reads a stream, and when the connection breaks it
reconnects to ``GET /api/v1/streams/<id>/events`` with ``Last-Event-ID`` until the stream ends."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from httpx_sse import ServerSentEvent, connect_sse


@dataclass
class Followed:
    stream_id: str
    events: list[ServerSentEvent] = field(default_factory=list)
    reconnects: int = 0
    refused: int = 0  # reconnects answered with an HTTP error (the service still down)

    @property
    def names(self) -> list[str]:
        return [event.event for event in self.events]


class _Refused(Exception):
    pass


class _CallbackFailed(Exception):
    pass


def sse_follow(
    client: httpx.Client,
    *,
    base: str,
    url: str,
    headers: dict[str, str],
    json: dict[str, Any],
    on_event: Callable[[ServerSentEvent], None] | None = None,
    deadline: float = 60.0,
) -> Followed:
    """POST ``json`` to ``url`` for a stream, follow it to its end across broken connections."""
    ends_at = time.monotonic() + deadline
    followed: Followed | None = None
    last_id: str | None = None
    while True:
        method, target, body = ("POST", url, json) if followed is None else ("GET", "", None)
        request_headers = dict(headers)
        if followed is not None:
            target = f"{base}/api/v1/streams/{followed.stream_id}/events"
            if last_id:
                request_headers["Last-Event-ID"] = last_id
        watchdog: threading.Timer | None = None
        try:
            with connect_sse(client, method, target, headers=request_headers, json=body) as source:
                # Heartbeats keep a stream that never ends alive: past the deadline, hang up.
                watchdog = threading.Timer(
                    max(0.0, ends_at - time.monotonic()), source.response.close
                )
                watchdog.daemon = True
                watchdog.start()
                if source.response.status_code != 200:
                    source.response.read()
                    raise _Refused(f"{source.response.status_code}: {source.response.text}")
                if followed is None:
                    followed = Followed(stream_id=source.response.headers["X-Parley-Stream-Id"])
                for event in source.iter_sse():
                    if event.id:
                        last_id = event.id
                    followed.events.append(event)
                    if on_event is not None:
                        try:
                            on_event(event)
                        except Exception as exc:  # the test's own failure, not the stream's
                            raise _CallbackFailed(str(exc)) from exc
                return followed
        except (httpx.TransportError, httpx.StreamError, _Refused) as exc:
            if followed is None:
                raise  # the stream never started: nothing to resume
            if time.monotonic() >= ends_at:
                raise AssertionError(
                    f"stream {followed.stream_id} did not end within {deadline}s"
                ) from None
            followed.reconnects += 1
            followed.refused += isinstance(exc, _Refused)
            time.sleep(0.3)  # the widget's own back-off is longer; a test needs only some
        finally:
            if watchdog is not None:
                watchdog.cancel()
