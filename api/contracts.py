"""The wire contracts of the rag_search, chunk and chat endpoints (spec: rag-search-tool), as serializers.

Views validate input with the request serializers and shape output with the result ones, so
the OpenAPI schema and the code cannot drift apart.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from api.serializers import StrictCharField, StrictUUIDField

MAX_QUERY_CHARS = 4000
MAX_DOCUMENT_IDS = 200


class RagSearchRequestSerializer(serializers.Serializer[dict[str, Any]]):
    query = StrictCharField(max_length=MAX_QUERY_CHARS, help_text="The natural-language question.")
    document_ids = serializers.ListField(
        child=StrictUUIDField(),
        required=False,
        allow_empty=False,
        max_length=MAX_DOCUMENT_IDS,
        help_text="Search only these documents; omitted: every document the caller may read.",
    )
    stream = serializers.BooleanField(
        default=False, help_text="Answer as SSE (same as Accept: text/event-stream)."
    )

    def validate_document_ids(self, value: list[object]) -> list[object]:
        return list(dict.fromkeys(value))  # duplicates are harmless; keep the caller's order


class RagSearchContextSerializer(serializers.Serializer[dict[str, Any]]):
    rank = serializers.IntegerField(min_value=1)
    chunk_id = serializers.UUIDField()
    document_id = serializers.UUIDField()
    text_preview = serializers.CharField()
    used_in_response = serializers.BooleanField()


class RagSearchResultSerializer(serializers.Serializer[dict[str, Any]]):
    response = serializers.CharField(
        help_text='Markdown with inline <citation id="CHUNK_ID">[n]</citation>.'
    )
    contexts = RagSearchContextSerializer(many=True)
    sources_used = serializers.ListField(
        child=serializers.IntegerField(min_value=1), help_text="Ranks cited."
    )
    model = serializers.CharField()
    execution_id = serializers.CharField()


class ChunkBoxSerializer(serializers.Serializer[dict[str, Any]]):
    bbox = serializers.ListField(
        child=serializers.FloatField(), min_length=4, max_length=4, help_text="[x1, y1, x2, y2]"
    )
    page_number = serializers.IntegerField(min_value=1)


class ChunkMetadataSerializer(serializers.Serializer[dict[str, Any]]):
    filename = serializers.CharField()
    languages = serializers.ListField(child=serializers.CharField())
    modality = serializers.CharField(help_text="text, audio or video")


class ChunkSerializer(serializers.Serializer[dict[str, Any]]):
    id = serializers.UUIDField()
    document_id = serializers.UUIDField()
    text = serializers.CharField()
    page_number = serializers.IntegerField(
        allow_null=True, min_value=1, help_text="Null for audio and video."
    )
    bbox = ChunkBoxSerializer(
        many=True, help_text="Empty for formats without coordinates (plain text, Markdown)."
    )
    start_time = serializers.FloatField(allow_null=True, help_text="Seconds, for audio and video.")
    end_time = serializers.FloatField(allow_null=True)
    metadata = ChunkMetadataSerializer()


class ChatTurnRequestSerializer(serializers.Serializer[dict[str, Any]]):
    message = StrictCharField(max_length=MAX_QUERY_CHARS)
    client_message_id = serializers.RegexField(
        r"^[A-Za-z0-9_.:-]{1,64}$",
        required=False,
        help_text="Makes the turn idempotent: a retry returns the same turn.",
    )
    stream = serializers.BooleanField(
        default=False, help_text="Answer as SSE (same as Accept: text/event-stream)."
    )
