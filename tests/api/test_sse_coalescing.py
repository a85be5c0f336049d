"""The producer's writes: coalesced tool_partial_update events that lose no text, and one TTL per batch."""

from __future__ import annotations

import itertools
import json
import threading
import time
import uuid

import pytest

from streams.redis_gateway import redis_sync
from streams.runners import stream_runner_open
from streams.sse import StreamOwner, StreamWriter, stream_open, stream_producing
from streams.sse.buffer import CLOSE_MARKER, stream_key, stream_owner_key
from streams.sse.events import StreamEmitter
from tests.api.factories import server_key_make, workspace_make

ANSWER = "Parley joins the deltas that arrive within one interval, so the reader gets fewer, longer ones."


def _entries(stream_id: str) -> list[tuple[int, str, dict]]:
    """(Redis time in ms, event, data) of each buffered entry."""
    return [
        (int(entry.split("-")[0]), f["e"], json.loads(f["d"]))
        for entry, f in redis_sync().xrange(stream_key(stream_id))
    ]


def _new_stream() -> str:
    return stream_open(owner=StreamOwner(workspace_id=str(uuid.uuid4())))


def _partials(stream_id: str) -> list[tuple[int, str]]:
    return [
        (ms, data["content"])
        for ms, event, data in _entries(stream_id)
        if event == "tool_partial_update"
    ]


class _TimedWriter(StreamWriter):
    """Records when each batch holding a partial update is written (this process's clock, not Redis')."""

    def __init__(self, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(**kwargs)
        self.partial_writes: list[float] = []

    def _write(self, batch, *, renew_expiry: bool = False) -> None:  # type: ignore[no-untyped-def]
        if any(event == "tool_partial_update" for event, _ in batch):
            self.partial_writes.append(time.monotonic())
        super()._write(batch, renew_expiry=renew_expiry)


def test_partials_are_coalesced_to_one_per_interval_and_join_to_the_answer() -> None:
    stream_id = _new_stream()
    writer = _TimedWriter(stream_id=stream_id, partial_interval=0.05)
    emit = StreamEmitter(writer.emit)
    words = ANSWER.split(" ")
    emit.compiling_results_started()
    for index, word in enumerate(words):
        emit.partial(content=word if index == 0 else f" {word}")
        time.sleep(0.01)  # a token every 10 ms: about five per interval
    emit.end(result={"response": ANSWER})
    writer.close()
    partials = _partials(stream_id)
    assert "".join(content for _, content in partials) == ANSWER
    assert 2 <= len(partials) < len(words) and len(partials) == len(writer.partial_writes)
    times = writer.partial_writes[:-1]  # the last one may leave early, with tool_end
    assert all(later - earlier >= 0.045 for earlier, later in itertools.pairwise(times))
    names = [event for _, event, _ in _entries(stream_id)]
    assert names[0] == "tool_update" and names[-2:] == ["tool_end", CLOSE_MARKER]


def test_stream_producing_coalesces_with_the_configured_interval(settings) -> None:
    settings.API_SSE_PARTIAL_INTERVAL_MS = 10_000
    stream_id = _new_stream()
    with stream_producing(stream_id=stream_id) as emit:
        for word in ANSWER.split(" "):
            emit.partial(content=f"{word} ")
    assert [content for _, content in _partials(stream_id)] == [
        ANSWER.split(" ")[0] + " ",
        ANSWER.split(" ", 1)[1] + " ",
    ]


def test_a_pending_delta_leaves_when_its_interval_is_over_even_if_no_token_follows() -> None:
    stream_id = _new_stream()
    writer = StreamWriter(stream_id=stream_id, partial_interval=0.05)
    emit = StreamEmitter(writer.emit)
    emit.partial(content="First")  # nothing sent for a while: it leaves at once
    emit.partial(content=" words")  # within the interval: pending
    assert [content for _, content in _partials(stream_id)] == ["First"]
    time.sleep(0.25)  # the model is busy with the fields after the answer: the flusher sends it
    assert [content for _, content in _partials(stream_id)] == ["First", " words"]
    writer.close()


def test_another_output_key_or_event_flushes_the_pending_delta_first_in_order() -> None:
    stream_id = _new_stream()
    writer = StreamWriter(stream_id=stream_id, partial_interval=10.0)
    emit = StreamEmitter(writer.emit)
    emit.partial(content="a")
    emit.partial(content="b")
    emit.partial(content="c", output_key="summary")
    emit.partial(content="d", output_key="summary")
    emit.end(result={"response": "ab"})
    writer.close()
    assert [(event, data) for _, event, data in _entries(stream_id)] == [
        ("tool_partial_update", {"content": "a", "output_key": "response"}),
        ("tool_partial_update", {"content": "b", "output_key": "response"}),
        ("tool_partial_update", {"content": "cd", "output_key": "summary"}),
        ("tool_end", {"response": "ab"}),
        (CLOSE_MARKER, {}),
    ]


def test_interval_zero_sends_every_delta(settings) -> None:
    settings.API_SSE_PARTIAL_INTERVAL_MS = 0
    stream_id = _new_stream()
    with stream_producing(stream_id=stream_id) as emit:
        for word in ["one", " two", " three"]:
            emit.partial(content=word)
    assert [content for _, content in _partials(stream_id)] == ["one", " two", " three"]


def test_the_buffer_gets_its_ttl_from_the_first_write_and_again_at_the_close(settings) -> None:
    settings.API_SSE_STREAM_TTL_SECONDS = 600
    stream_id = _new_stream()
    client = redis_sync()
    with stream_producing(stream_id=stream_id) as emit:
        emit.compiling_results_started()
        assert 590 < client.ttl(stream_key(stream_id)) <= 600
        client.expire(stream_key(stream_id), 100)
        emit.partial(content="no EXPIRE per event")
        assert client.ttl(stream_key(stream_id)) <= 100
    assert 590 < client.ttl(stream_key(stream_id)) <= 600
    assert 590 < client.ttl(stream_owner_key(stream_id)) <= 600


@pytest.mark.django_db
def test_a_streamed_request_announces_search_preparation_before_any_worker_runs() -> None:
    from api.authentication import server_key_principal

    raw, _ = server_key_make(workspace_make())
    # Opened, not enqueued: the buffer holds the web process's own first event.
    stream_id = stream_runner_open(
        principal=server_key_principal(raw_key=raw), runner="demo", kwargs={}
    ).stream_id
    assert [(event, data) for _, event, data in _entries(stream_id)] == [
        ("tool_update", {"phase": "SEARCH_PREPARATION", "status": "started"})
    ]
    assert redis_sync().ttl(stream_key(stream_id)) > 0


def test_an_announced_producer_does_not_repeat_search_preparation() -> None:
    stream_id = _new_stream()
    with stream_producing(stream_id=stream_id, announced=True) as emit:
        emit.search_preparation_started()
        emit.retrieval_completed(retrieved_count=3)
    assert [data.get("phase") for _, _, data in _entries(stream_id)] == ["RETRIEVAL", None]


class _CountingWriter(StreamWriter):
    """Records each write's events (one script, one round trip each)."""

    def __init__(self, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(**kwargs)
        self.writes: list[list[str]] = []

    def _write(self, batch, *, renew_expiry: bool = False) -> None:  # type: ignore[no-untyped-def]
        if batch:
            self.writes.append([event for event, _ in batch])
        super()._write(batch, renew_expiry=renew_expiry)


def test_a_phase_end_leaves_with_the_next_phase_and_tool_end_with_the_close() -> None:
    stream_id = _new_stream()
    writer = _CountingWriter(stream_id=stream_id, partial_interval=10.0)
    emit = StreamEmitter(writer.emit)
    emit.retrieval_completed(retrieved_count=4)
    emit.reranking_completed(initial_count=4, reranked_count=4, kept_count=2)
    assert writer.writes == []  # held: the next phase starts at once
    emit.compiling_results_started()
    emit.partial(content="Answer")
    emit.end(result={"response": "Answer"})
    assert len(writer.writes) == 2  # tool_end waits for the close
    writer.close()
    assert writer.writes == [
        ["tool_update", "tool_update", "tool_update"],
        ["tool_partial_update"],
        ["tool_end", CLOSE_MARKER],
    ]
    assert [(event, data.get("phase")) for _, event, data in _entries(stream_id)] == [
        ("tool_update", "RETRIEVAL"),
        ("tool_update", "RERANKING"),
        ("tool_update", "COMPILING_RESULTS"),
        ("tool_partial_update", None),
        ("tool_end", None),
        (CLOSE_MARKER, None),
    ]


def test_a_held_event_that_nothing_follows_leaves_when_its_interval_is_over() -> None:
    stream_id = _new_stream()
    writer = _CountingWriter(stream_id=stream_id, partial_interval=0.05)
    StreamEmitter(writer.emit).retrieval_completed(retrieved_count=1)
    assert _entries(stream_id) == []
    time.sleep(0.25)
    assert [data["phase"] for _, _, data in _entries(stream_id)] == ["RETRIEVAL"]
    writer.close()
    assert writer.writes == [["tool_update"], [CLOSE_MARKER]]


def test_a_reader_blocked_on_the_stream_gets_a_whole_batch_in_one_read() -> None:
    stream_id = _new_stream()
    client = redis_sync()
    start = client.xrevrange(stream_key(stream_id), count=1)
    position = start[0][0] if start else "0-0"
    writer = StreamWriter(stream_id=stream_id, partial_interval=10.0)
    emit = StreamEmitter(writer.emit)
    emit.end(result={"response": "done"})
    read: list = []
    reader = threading.Thread(
        target=lambda: read.extend(
            client.xread({stream_key(stream_id): position}, count=100, block=5000)
        )
    )
    reader.start()
    time.sleep(0.1)  # the reader is blocked before the write
    writer.close()
    reader.join(timeout=5)
    assert [fields["e"] for _, fields in read[0][1]] == ["tool_end", CLOSE_MARKER]
