"""SSE through a real uvicorn process, read with httpx-sse while this process produces through Redis."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from httpx_sse import ServerSentEvent, connect_sse

from streams.redis_gateway import redis_sync
from streams.sse import StreamEmitter, StreamOwner, stream_close, stream_open, stream_publish
from streams.sse.buffer import stream_key, stream_owner_key
from tests.api.conftest import LIVE_SSE_MAX_EVENT_BYTES
from tests.api.factories import bot_make, server_key_make, widget_key_make, workspace_make

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(60)]


def _in_background(produce: Callable[[], None]) -> threading.Thread:
    thread = threading.Thread(target=produce, daemon=True)
    thread.start()
    return thread


def _publisher(stream_id: str, ids: list[str]) -> StreamEmitter:
    return StreamEmitter(
        lambda event, data: ids.append(stream_publish(stream_id=stream_id, event=event, data=data))
    )


def join_deltas(events: list[ServerSentEvent]) -> list[tuple[str, str, Any]]:
    """What a client does: buffer <event>_delta_sse pieces and parse the joined chunks as the event's data."""
    joined: list[tuple[str, str, Any]] = []
    pieces: list[dict[str, Any]] = []
    for event in events:
        if event.event.endswith("_delta_sse"):
            piece = json.loads(event.data)
            assert piece["seq"] == len(pieces)
            pieces.append(piece)
            if piece["seq"] == piece["total"] - 1:
                data = json.loads("".join(p["chunk"] for p in pieces))
                joined.append(
                    (event.event.removesuffix("_delta_sse"), event.id.rsplit(".", 1)[0], data)
                )
                pieces = []
        else:
            joined.append((event.event, event.id, json.loads(event.data)))
    assert pieces == []
    return joined


def _big_result() -> dict[str, Any]:
    text = 'Selon le "manuel", le télétravail 🏠 est permis.\n' * 120
    contexts = [{"rank": n, "chunk_id": f"c{n}", "text_preview": text[:200]} for n in range(1, 6)]
    return {
        "response": text,
        "contexts": contexts,
        "sources_used": [1, 2],
        "model": "offline",
        "execution_id": "x",
    }


def _server_stream() -> tuple[dict[str, str], str]:
    workspace = workspace_make()
    raw, _ = server_key_make(workspace)
    stream_id = stream_open(owner=StreamOwner(workspace_id=str(workspace.pk)))
    return {"Authorization": f"Bearer {raw}"}, stream_id


def test_events_arrive_in_order_with_ids_while_they_are_produced(live_api: str) -> None:
    headers, stream_id = _server_stream()
    ids: list[str] = []

    def produce() -> None:
        emit = _publisher(stream_id, ids)
        time.sleep(0.3)  # the client is connected and waiting: events are relayed live
        emit.search_preparation_started()
        emit.retrieval_completed(retrieved_count=15)
        emit.reranking_completed(initial_count=15, reranked_count=15, kept_count=5)
        emit.compiling_results_started()
        for word in ["Selon", " le", " document..."]:
            emit.partial(content=word)
        emit.end(result={"response": "Selon le document...", "sources_used": [1]})
        stream_close(stream_id=stream_id)

    thread = _in_background(produce)
    with httpx.Client(timeout=10) as client:
        url = f"{live_api}/api/v1/streams/{stream_id}/events"
        with connect_sse(client, "GET", url, headers=headers) as source:
            assert source.response.status_code == 200
            assert source.response.headers["content-type"].startswith("text/event-stream")
            assert source.response.headers["x-parley-stream-id"] == stream_id
            events = list(source.iter_sse())
    thread.join(5)
    assert [event.event for event in events] == ["tool_update"] * 4 + [
        "tool_partial_update"
    ] * 3 + ["tool_end"]
    assert [event.id for event in events] == ids
    assert json.loads(events[1].data) == {
        "phase": "RETRIEVAL",
        "status": "completed",
        "data": {"retrieved_count": 15},
    }
    assert "".join(json.loads(e.data)["content"] for e in events[4:7]) == "Selon le document..."
    assert json.loads(events[-1].data)["sources_used"] == [1]


def test_an_oversized_payload_arrives_as_delta_pieces_that_join(live_api: str) -> None:
    headers, stream_id = _server_stream()
    ids: list[str] = []
    emit = _publisher(stream_id, ids)
    emit.compiling_results_started()
    emit.end(result=_big_result())
    stream_close(stream_id=stream_id)
    with httpx.Client(timeout=10) as client:
        url = f"{live_api}/api/v1/streams/{stream_id}/events"
        with connect_sse(client, "GET", url, headers=headers) as source:
            events = list(source.iter_sse())
    deltas = [event for event in events if event.event == "tool_end_delta_sse"]
    assert len(deltas) > 3
    assert all(len(event.data.encode()) <= LIVE_SSE_MAX_EVENT_BYTES for event in deltas)
    assert [event.id for event in deltas] == [f"{ids[1]}.{n}" for n in range(len(deltas))]
    assert join_deltas(events) == [
        ("tool_update", ids[0], {"phase": "COMPILING_RESULTS", "status": "started"}),
        ("tool_end", ids[1], _big_result()),
    ]


def test_a_dropped_client_resumes_with_last_event_id(live_api: str) -> None:
    headers, stream_id = _server_stream()
    ids: list[str] = []
    emit = _publisher(stream_id, ids)
    emit.search_preparation_started()
    emit.retrieval_completed(retrieved_count=3)
    emit.end(result=_big_result())  # a split event in the middle
    url = f"{live_api}/api/v1/streams/{stream_id}/events"
    with httpx.Client(timeout=10) as client:
        with connect_sse(client, "GET", url, headers=headers) as source:
            first = []
            for event in source.iter_sse():
                first.append(event)
                if len(first) == 2:
                    break  # the connection drops mid-stream; nothing was closed yet
        emit.partial(content="after the drop")
        stream_close(stream_id=stream_id)

        resume_headers = {**headers, "Last-Event-ID": first[-1].id}
        with connect_sse(client, "GET", url, headers=resume_headers) as source:
            rest = list(source.iter_sse())
        joined = join_deltas(rest)
        assert [event.id for event in first] == ids[:2]
        assert [(event, event_id) for event, event_id, _ in joined] == [
            ("tool_end", ids[2]),
            ("tool_partial_update", ids[3]),
        ]
        assert joined[0][2] == _big_result()

        # Dropped between two pieces of the split event: it resumes at the next piece.
        mid_headers = {**headers, "Last-Event-ID": rest[0].id}
        with connect_sse(client, "GET", url, headers=mid_headers) as source:
            tail = list(source.iter_sse())
        assert tail[0].id == f"{ids[2]}.1"
        assert [event.id for event in tail[: len(rest) - 1]] == [event.id for event in rest[1:]]

        bad = client.get(url, headers={**headers, "Last-Event-ID": "nonsense"})
        assert bad.status_code == 400 and bad.json()["code"] == "invalid_request"


def test_an_idle_stream_sends_heartbeats_then_ends_on_close(live_api: str) -> None:
    """Heartbeats every 0.2 s keep an idle stream open; closing the stream ends the response."""
    headers, stream_id = _server_stream()
    url = f"{live_api}/api/v1/streams/{stream_id}/events"
    lines: list[str] = []
    with httpx.Client(timeout=10) as client, client.stream("GET", url, headers=headers) as response:
        for line in response.iter_lines():
            lines.append(line)
            if lines.count(": heartbeat") == 3:
                stream_close(
                    stream_id=stream_id
                )  # the loop ends only if the server then ends the response
    assert lines[0] == ": connected"
    assert lines.count(": heartbeat") >= 3


def test_an_expired_stream_ends_with_an_error_event(live_api: str) -> None:
    headers, stream_id = _server_stream()
    stream_publish(
        stream_id=stream_id,
        event="tool_update",
        data={"phase": "SEARCH_PREPARATION", "status": "started"},
    )

    def expire() -> None:
        time.sleep(0.5)
        redis_sync().delete(stream_key(stream_id), stream_owner_key(stream_id))

    thread = _in_background(expire)
    url = f"{live_api}/api/v1/streams/{stream_id}/events"
    with (
        httpx.Client(timeout=10) as client,
        connect_sse(client, "GET", url, headers=headers) as source,
    ):
        events = list(source.iter_sse())
    thread.join(5)
    assert [event.event for event in events] == ["tool_update", "error"]
    assert json.loads(events[-1].data)["code"] == "stream_expired"


def test_a_widget_reads_its_visitors_stream_with_cors_and_nobody_else_can(live_api: str) -> None:
    bot = bot_make()
    key = widget_key_make(bot)
    origin = "https://shop.example"
    base = {"Authorization": f"Bearer {key.key}", "Origin": origin}
    with httpx.Client(timeout=10) as client:
        session = client.post(f"{live_api}/api/v1/sessions", json={}, headers=base).json()
        visitor = {**base, "X-Parley-Session": session["session_token"]}
        me = client.get(f"{live_api}/api/v1/me", headers=visitor).json()
        owner = StreamOwner(
            workspace_id=me["workspace_id"],
            bot_id=me["bot_id"],
            visitor_id=session["visitor_id"],
            conversation_id=session["conversation_id"],
        )
        stream_id = stream_open(owner=owner)
        stream_publish(
            stream_id=stream_id,
            event="tool_partial_update",
            data={"content": "hi", "output_key": "response"},
        )
        stream_close(stream_id=stream_id)
        url = f"{live_api}/api/v1/streams/{stream_id}/events"
        with connect_sse(client, "GET", url, headers=visitor) as source:
            assert source.response.headers["access-control-allow-origin"] == origin
            assert [event.event for event in source.iter_sse()] == ["tool_partial_update"]

        another_visitor = client.post(f"{live_api}/api/v1/sessions", json={}, headers=base).json()
        refused = [
            client.get(url, headers=base),  # no visitor session
            client.get(url, headers={**base, "X-Parley-Session": another_visitor["session_token"]}),
            client.get(
                url, headers={"Authorization": f"Bearer {server_key_make(workspace_make())[0]}"}
            ),
        ]
        assert [response.status_code for response in refused] == [404, 404, 404]
        assert all(response.json()["code"] == "not_found" for response in refused)
