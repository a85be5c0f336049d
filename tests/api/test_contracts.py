"""The rag_search, chunk and chat wire contracts validate input and keep the spec's output fields."""

from __future__ import annotations

import uuid

import pytest
from django.test import RequestFactory

from api.contracts import (
    MAX_QUERY_CHARS,
    ChatTurnRequestSerializer,
    ChunkSerializer,
    RagSearchRequestSerializer,
    RagSearchResultSerializer,
)
from streams.sse import wants_event_stream


def test_rag_search_input() -> None:
    doc = str(uuid.uuid4())
    ok = RagSearchRequestSerializer(
        data={"query": "How do I reset my token?", "document_ids": [doc, doc]}
    )
    assert ok.is_valid(), ok.errors
    assert ok.validated_data == {
        "query": "How do I reset my token?",
        "document_ids": [uuid.UUID(doc)],
        "stream": False,
    }
    assert RagSearchRequestSerializer(data={"query": "q"}).is_valid()
    longest = RagSearchRequestSerializer(data={"query": " " + "x" * (MAX_QUERY_CHARS - 1)})
    assert longest.is_valid(), longest.errors
    assert longest.validated_data["query"] == "x" * (MAX_QUERY_CHARS - 1)


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({}, "query"),
        ({"query": "   "}, "query"),
        ({"query": 3}, "query"),
        ({"query": ["q"]}, "query"),
        ({"query": "q", "document_ids": "not-a-list"}, "document_ids"),
        ({"query": "q", "document_ids": [12]}, "document_ids"),
        ({"query": "q", "document_ids": ["nope"]}, "document_ids"),
        ({"query": "q", "document_ids": []}, "document_ids"),
        ({"query": "x" * 5000}, "query"),
        # The limit bounds the text as sent (the schema's maxLength), not the text after trimming.
        ({"query": "\f" + "x" * MAX_QUERY_CHARS}, "query"),
        ({"query": "x" * MAX_QUERY_CHARS + " "}, "query"),
    ],
)
def test_rag_search_input_errors_name_the_field(payload: dict, field: str) -> None:
    serializer = RagSearchRequestSerializer(data=payload)
    assert not serializer.is_valid()
    assert list(serializer.errors) == [field]


def test_rag_search_output_keeps_the_spec_fields() -> None:
    chunk, document = uuid.uuid4(), uuid.uuid4()
    result = {
        "response": f'Remote work needs approval <citation id="{chunk}">[1]</citation>',
        "contexts": [
            {
                "rank": 1,
                "chunk_id": chunk,
                "document_id": document,
                "text_preview": "Approval...",
                "used_in_response": True,
            }
        ],
        "sources_used": [1],
        "model": "offline",
        "execution_id": "exec_1",
    }
    data = RagSearchResultSerializer(result).data
    assert list(data) == ["response", "contexts", "sources_used", "model", "execution_id"]
    assert data["contexts"][0]["chunk_id"] == str(chunk)


def test_chunk_output_for_text_and_media() -> None:
    pdf = {
        "id": uuid.uuid4(),
        "document_id": uuid.uuid4(),
        "text": "Full text",
        "page_number": 3,
        "bbox": [{"bbox": [1.0, 2.0, 3.0, 4.0], "page_number": 3}],
        "start_time": None,
        "end_time": None,
        "metadata": {"filename": "guide.pdf", "languages": ["eng"], "modality": "text"},
    }
    data = ChunkSerializer(pdf).data
    assert data["bbox"] == [{"bbox": [1.0, 2.0, 3.0, 4.0], "page_number": 3}]
    video = {**pdf, "page_number": None, "bbox": [], "start_time": 120.5, "end_time": 135.0}
    assert ChunkSerializer(video).data["start_time"] == 120.5


def test_chat_turn_input_and_stream_negotiation() -> None:
    serializer = ChatTurnRequestSerializer(data={"message": "Hello", "client_message_id": "m-1"})
    assert serializer.is_valid(), serializer.errors
    assert not ChatTurnRequestSerializer(
        data={"message": "Hi", "client_message_id": "bad id!"}
    ).is_valid()
    factory = RequestFactory()
    assert wants_event_stream(factory.get("/", HTTP_ACCEPT="text/event-stream"))
    assert not wants_event_stream(factory.get("/", HTTP_ACCEPT="application/json"))
    assert wants_event_stream(factory.get("/"), stream_flag=True)
