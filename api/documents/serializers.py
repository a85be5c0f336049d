"""Request and response shapes of the documents endpoints."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.utils import html

from api.serializers import QueryParamsSerializer, StrictCharField, StrictUUIDField
from rag.models import Document

MAX_BOT_IDS = 100


class UploadBotIdsField(serializers.ListField):
    """A multipart form cannot send an empty list: there, one empty `bot_ids` field is one."""

    def get_value(self, dictionary: Any) -> Any:
        value = super().get_value(dictionary)
        if html.is_html_input(dictionary) and value == [""]:
            return []  # multipart `bot_ids=` (JSON says [] itself; [""] there stays invalid)
        return value


def _bot_ids_field() -> serializers.ListField:
    return UploadBotIdsField(
        child=StrictUUIDField(),
        required=False,
        max_length=MAX_BOT_IDS,
        help_text="The bots that get the document (ones the key may use). Left out: every bot the key "
        "may use, as the admin's upload does. To give it to no bot, send it empty: `[]` in JSON, one "
        "empty `bot_ids` field in a multipart upload. Not with conversation_id.",
    )


def _conversation_id_field() -> StrictUUIDField:
    return StrictUUIDField(
        required=False,
        help_text="Make it a session document of this conversation (only that conversation's turns use it).",
    )


class DocumentTextCreateSerializer(serializers.Serializer[dict[str, Any]]):
    title = StrictCharField(max_length=300)
    text = StrictCharField(
        trim_whitespace=False, help_text="The document's content, stored as a text file."
    )
    format = serializers.ChoiceField(choices=["text", "markdown"], default="text")
    bot_ids = _bot_ids_field()
    conversation_id = _conversation_id_field()

    def validate_text(self, value: str) -> str:
        if not value.strip():
            raise serializers.ValidationError("The text is empty.")
        size = len(value.encode("utf-8"))
        if size > settings.PARLEY_UPLOAD_MAX_BYTES:
            raise serializers.ValidationError(
                f"The text is {size:,} bytes, over the {settings.PARLEY_UPLOAD_MAX_BYTES:,}-byte limit."
            )
        return value


class DocumentUploadSerializer(serializers.Serializer[dict[str, Any]]):
    files = serializers.ListField(
        child=serializers.FileField(),
        min_length=1,
        help_text="One or more files (repeat the form field). Types: txt, md, html, pdf, docx, csv, vtt, srt.",
    )
    title = StrictCharField(
        max_length=300, required=False, help_text="Only with a single file; default: its name."
    )
    bot_ids = _bot_ids_field()
    conversation_id = _conversation_id_field()

    def validate_files(self, value: list[object]) -> list[object]:
        if len(value) > settings.API_DOCUMENTS_MAX_FILES:
            raise serializers.ValidationError(
                f"At most {settings.API_DOCUMENTS_MAX_FILES} files per request."
            )
        return value

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs.get("title") and len(attrs["files"]) > 1:
            raise serializers.ValidationError({"title": ["A title goes with a single file only."]})
        return attrs


class DocumentUpdateSerializer(serializers.Serializer[dict[str, Any]]):
    title = StrictCharField(max_length=300, required=False)
    bot_ids = serializers.ListField(
        child=StrictUUIDField(),
        required=False,
        max_length=MAX_BOT_IDS,
        help_text="Replaces the attached bots.",
    )


class DocumentListQuerySerializer(QueryParamsSerializer):
    status = serializers.ChoiceField(choices=Document.Status.values, required=False)
    bot_id = StrictUUIDField(required=False, help_text="Only documents attached to this bot.")
    conversation_id = StrictUUIDField(
        required=False, help_text="Only this conversation's session documents."
    )
    limit = serializers.IntegerField(
        required=False, min_value=1, max_value=100, help_text="Page size (default 20)."
    )
    offset = serializers.IntegerField(required=False, min_value=0)


class BotRefSerializer(serializers.Serializer[dict[str, Any]]):
    id = serializers.UUIDField()
    name = serializers.CharField()


class DocumentSerializer(serializers.Serializer[Document]):
    id = serializers.UUIDField()
    title = serializers.CharField()
    filename = serializers.CharField()
    mime_type = serializers.CharField()
    size_bytes = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Document.Status.values)
    progress = serializers.IntegerField(
        min_value=0, max_value=100, help_text="Percent of the current ingestion."
    )
    error_code = serializers.CharField(help_text="Stable reason of a failure; empty otherwise.")
    error = serializers.CharField(help_text="Readable reason of a failure; empty otherwise.")
    chunk_count = serializers.IntegerField()
    language = serializers.CharField()
    bot_ids = serializers.SerializerMethodField()
    bots = serializers.SerializerMethodField(
        help_text="The bots that use the document (their ids and names); empty: no bot answers from it."
    )
    conversation_id = serializers.UUIDField(allow_null=True)
    external_user_id = serializers.CharField(
        help_text="Set when an external user owns it (only they see it)."
    )
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)

    @extend_schema_field(serializers.ListField(child=serializers.UUIDField()))
    def get_bot_ids(self, document: Document) -> list[str]:
        """From the prefetched bots: listing costs no query per document."""
        return sorted(str(bot.pk) for bot in document.bots.all())

    @extend_schema_field(BotRefSerializer(many=True))
    def get_bots(self, document: Document) -> list[dict[str, str]]:
        """From the prefetched bots, by name."""
        bots = sorted(document.bots.all(), key=lambda bot: (bot.name, str(bot.pk)))
        return [{"id": str(bot.pk), "name": bot.name} for bot in bots]


class DocumentBatchSerializer(serializers.Serializer[dict[str, Any]]):
    documents = DocumentSerializer(many=True)
