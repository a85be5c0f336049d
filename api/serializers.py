"""Request and response shapes of the API's own endpoints, and the error shape for the schema."""

from __future__ import annotations

import uuid
from typing import Any

from rest_framework import serializers
from rest_framework.fields import empty
from rest_framework.utils import html

from api.errors import ErrorCode


class StrictCharField(serializers.CharField):
    """Text that must be a JSON string: DRF's own field would turn 3 or true into "3" and "True".

    ``max_length`` bounds the text as sent, as the schema's ``maxLength`` does: DRF checks it after
    trimming, so 4,001 characters with a leading space would pass a 4,000 limit."""

    def to_internal_value(self, data: object) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        if self.max_length is not None and len(data) > self.max_length:
            self.fail("max_length", max_length=self.max_length)
        return super().to_internal_value(data)


class StrictUUIDField(serializers.UUIDField):
    """A UUID written as a string: DRF's own field would also take the integer 12 as a UUID."""

    def to_internal_value(self, data: Any) -> uuid.UUID:
        if not isinstance(data, str):
            self.fail("invalid", value=data)
        return super().to_internal_value(data)

    def get_value(self, dictionary: Any) -> object:
        # DRF skips an optional form field sent empty; '' is not a UUID, so a multipart upload with
        # `conversation_id=` is refused rather than taken as a document of no conversation.
        value = super().get_value(dictionary)
        if (
            value is empty
            and html.is_html_input(dictionary)
            and dictionary.get(self.field_name) == ""
        ):
            return ""
        return value


class ErrorSerializer(serializers.Serializer[dict[str, Any]]):
    code = serializers.ChoiceField(choices=[code.value for code in ErrorCode])
    message = serializers.CharField()
    extra = serializers.DictField(
        help_text="Details; validation errors carry extra.fields {field: [messages]}."
    )


class PrincipalSerializer(serializers.Serializer[dict[str, Any]]):
    kind = serializers.CharField()
    workspace_id = serializers.UUIDField()
    bot_id = serializers.UUIDField(allow_null=True)
    scopes = serializers.ListField(child=serializers.CharField())
    external_user_id = serializers.CharField(allow_null=True)
    conversation_id = serializers.UUIDField(allow_null=True)


class SessionCreateSerializer(serializers.Serializer[dict[str, Any]]):
    bot_id = StrictUUIDField(
        required=False, help_text="Required with a server key; a widget key uses its bot."
    )
    visitor_id = serializers.RegexField(r"^[A-Za-z0-9_.:-]{1,64}$", required=False)
    widget_visitor_id = serializers.RegexField(
        r"^[A-Za-z0-9_.:-]{8,64}$",
        required=False,
        help_text="The widget's random id for the browser: ties its conversations together for "
        "a privacy request (export, erasure by visitor id). Never a credential.",
    )


class SessionSerializer(serializers.Serializer[dict[str, Any]]):
    conversation_id = serializers.UUIDField()
    bot_id = serializers.UUIDField()
    visitor_id = serializers.CharField()
    widget_visitor_id = serializers.CharField(allow_blank=True)
    session_token = serializers.CharField(help_text="Send it back as the X-Parley-Session header.")


class QueryParamsSerializer(serializers.Serializer[dict[str, Any]]):
    """Query parameters, where DRF would read ``?name=`` as "not given": here an empty value is an error."""

    def to_internal_value(self, data: Any) -> Any:
        blank = {
            str(name): ["This value may not be blank."]
            for name in self.fields
            if _is_blank(data, str(name))
        }
        if blank:
            raise serializers.ValidationError(blank)
        return super().to_internal_value(data)


def _is_blank(data: object, name: str) -> bool:
    getlist = getattr(data, "getlist", None)
    return getlist is not None and "" in [value.strip() for value in getlist(name)]


class SseEventSerializer(serializers.Serializer[dict[str, Any]]):
    """One event of a text/event-stream response, as the schema describes it (docs/api.md: framing)."""

    event = serializers.CharField(
        help_text="tool_update, tool_partial_update, error, tool_end, or <event>_delta_sse."
    )
    data = serializers.CharField(  # type: ignore[assignment]  # named like Serializer.data: schema only
        help_text="JSON text; for a _delta_sse piece: {seq, total, chunk}."
    )
    id = serializers.CharField(help_text="Send the last one back as Last-Event-ID to resume.")
