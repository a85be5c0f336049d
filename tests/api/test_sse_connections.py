"""An SSE response holds no database connection while it relays (found by bench/api at 128 streams)."""

from __future__ import annotations

import pytest
from django.db import connection, transaction

from streams.sse import sse_response


@pytest.mark.django_db(transaction=True)
def test_a_stream_response_releases_the_requests_database_connection() -> None:
    connection.ensure_connection()
    assert connection.connection is not None
    response = sse_response(stream_id="s-unused", last_event_id=None)
    assert connection.connection is None
    assert response["Content-Type"] == "text/event-stream"


@pytest.mark.django_db(transaction=True)
def test_a_connection_inside_a_transaction_is_left_open() -> None:
    with transaction.atomic():
        connection.ensure_connection()
        sse_response(stream_id="s-unused", last_event_id=None)
        assert connection.connection is not None and connection.in_atomic_block


def test_the_relays_redis_reads_outlast_a_heartbeat_interval(settings) -> None:  # type: ignore[no-untyped-def]
    """XREAD BLOCK waits one heartbeat interval; a shorter socket timeout would cut quiet streams."""
    from streams.redis_gateway import redis_async

    settings.API_SSE_HEARTBEAT_SECONDS = 15.0
    timeout = redis_async().connection_pool.connection_kwargs["socket_timeout"]
    assert timeout > 15.0


def test_relays_on_one_event_loop_share_one_async_client_and_its_pool() -> None:
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from streams.redis_gateway import redis_async

    async def two_relays() -> tuple[object, object]:
        return redis_async(), redis_async()

    def in_a_new_loop() -> tuple[object, object]:
        # A thread of its own: another test (Playwright's sync API) may leave a loop running in this one.
        with ThreadPoolExecutor(max_workers=1) as executor:
            return executor.submit(asyncio.run, two_relays()).result()

    first, second = in_a_new_loop()
    assert first is second
    assert (
        first.connection_pool.max_connections >= 1000
    )  # one per open stream: not redis-py's default 100
    other_loop, _ = in_a_new_loop()
    assert other_loop is not first  # connections belong to the loop that made them


def _relayed(stream_id: str, on_first_event, *, frames: int | None = None) -> list[str]:  # type: ignore[no-untyped-def]
    """The relay's output in a loop of its own thread: every frame, or the first `frames` then a disconnect."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from streams.sse.response import sse_events

    async def read() -> list[str]:
        out: list[str] = []
        events = sse_events(stream_id=stream_id, cursor=None, on_first_event=on_first_event)
        async for frame in events:
            out.append(frame)
            if frames is not None and len(out) == frames:
                await events.aclose()  # the client left
                break
        return out

    with ThreadPoolExecutor(max_workers=1) as executor:
        return executor.submit(asyncio.run, read()).result()


def _stream_opened() -> str:
    from streams.sse import StreamOwner, stream_open

    return stream_open(owner=StreamOwner(workspace_id="w"), announce=True)


def test_a_new_streams_run_starts_once_its_first_event_is_sent() -> None:
    from streams.sse import stream_close

    stream_id = _stream_opened()
    started: list[int] = []

    def start() -> (
        None
    ):  # the run: here it only records how much the client had when it started, then ends
        started.append(1)
        stream_close(stream_id=stream_id)

    frames = _relayed(stream_id, start)
    assert started == [1]
    assert frames[0] == ": connected\n" and "SEARCH_PREPARATION" in frames[1] and len(frames) == 2


def test_a_run_that_cannot_be_queued_ends_the_stream_with_an_error_event() -> None:
    def start() -> None:
        raise ConnectionError("the broker is unreachable")

    frames = _relayed(_stream_opened(), start)
    assert "SEARCH_PREPARATION" in frames[1]
    assert (
        frames[-1].startswith("id: ")
        and "event: error" in frames[-1]
        and '"code":"internal_error"' in frames[-1]
    )


def test_a_client_leaving_before_its_first_event_still_starts_the_run() -> None:
    started: list[int] = []
    frames = _relayed(
        _stream_opened(), lambda: started.append(1), frames=1
    )  # only ": connected" was read
    assert frames == [": connected\n"] and started == [1]
