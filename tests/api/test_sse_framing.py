"""The SSE wire format: whole events, _delta_sse pieces that join back exactly, and event ids."""

from __future__ import annotations

import json

import pytest

from streams.sse import StreamEmitter, frames_for_entry
from streams.sse.framing import EventCursor, event_cursor_parse


def _payload() -> str:
    text = 'Selon le "manuel" \\ télétravail 🏠\n\tligne\x01 ' * 300
    return json.dumps(
        {"response": text, "contexts": [{"rank": 1}]}, ensure_ascii=False, separators=(",", ":")
    )


def test_a_small_event_goes_out_whole() -> None:
    [frame] = frames_for_entry(
        entry_id="5-0", event="tool_update", data='{"phase":"RETRIEVAL"}', max_bytes=1024
    )
    assert frame.encode() == 'id: 5-0\nevent: tool_update\ndata: {"phase":"RETRIEVAL"}\n\n'


@pytest.mark.parametrize("limit", [256, 1000, 4096])
def test_a_large_event_is_split_into_pieces_that_join_back(limit: int) -> None:
    data = _payload()
    frames = frames_for_entry(entry_id="7-3", event="tool_end", data=data, max_bytes=limit)
    assert len(frames) > 1
    pieces = [json.loads(frame.data) for frame in frames]
    assert [frame.event for frame in frames] == ["tool_end_delta_sse"] * len(frames)
    assert [frame.id for frame in frames] == [f"7-3.{n}" for n in range(len(frames))]
    assert [p["seq"] for p in pieces] == list(range(len(frames)))
    assert {p["total"] for p in pieces} == {len(frames)}
    assert all(len(frame.data.encode()) <= limit for frame in frames)
    assert all("\n" not in frame.data for frame in frames)
    assert "".join(p["chunk"] for p in pieces) == data


def test_event_ids_parse_and_refuse_garbage() -> None:
    assert event_cursor_parse("1764480000000-12") == EventCursor(entry_id="1764480000000-12")
    assert event_cursor_parse("1764480000000-12.3") == EventCursor(
        entry_id="1764480000000-12", seq=3
    )
    for bad in ["", "abc", "1-2.x", "1-2\nevent: x"]:
        with pytest.raises(ValueError):
            event_cursor_parse(bad)


def test_the_emitter_speaks_the_spec_vocabulary() -> None:
    events: list[tuple[str, dict]] = []
    emit = StreamEmitter(lambda event, data: events.append((event, data)))
    emit.search_preparation_started()
    emit.retrieval_completed(retrieved_count=15)
    emit.reranking_completed(initial_count=15, reranked_count=15, kept_count=5)
    emit.compiling_results_started()
    emit.partial(content="Selon")
    emit.error(code="llm_unavailable", message="down")
    emit.end(result={"response": "x"})
    assert events == [
        ("tool_update", {"phase": "SEARCH_PREPARATION", "status": "started"}),
        (
            "tool_update",
            {"phase": "RETRIEVAL", "status": "completed", "data": {"retrieved_count": 15}},
        ),
        (
            "tool_update",
            {
                "phase": "RERANKING",
                "status": "completed",
                "data": {"initial_count": 15, "reranked_count": 15, "kept_count": 5},
            },
        ),
        ("tool_update", {"phase": "COMPILING_RESULTS", "status": "started"}),
        ("tool_partial_update", {"content": "Selon", "output_key": "response"}),
        ("error", {"code": "llm_unavailable", "message": "down", "extra": {}}),
        ("tool_end", {"response": "x"}),
    ]
