"""The export of the turns a changelist shows, as CSV or JSON, streamed, with visitors' and the model's
text redacted where the workspace redacts personal data."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import QuerySet
from django.http import StreamingHttpResponse

from core.redaction import pii_redact_json

EXPORT_FORMATS = ("csv", "json")
EXPORT_FIELDS = [
    "id",
    "created_at",
    "conversation_id",
    "channel",
    "user_text",
    "status",
    "answer",
    "topic",
    "suggested_topics",
    "confidence",
    "route_action",
    "route_reason",
    "model",
    "prompt_tokens",
    "completion_tokens",
    "latencies",
]
# The exported columns holding visitors' or the model's text.
_EXPORT_TEXT = ("user_text", "answer", "topic", "suggested_topics")


def turns_export(*, rows: QuerySet[Any], export: str) -> StreamingHttpResponse:
    """Stream the rows as CSV or JSON (no full list in memory: a figure may stand for 100k turns)."""
    if export == "json":
        body: Iterator[str] = _json_lines(_redacted(rows))
        response = StreamingHttpResponse(body, content_type="application/json")
    else:
        body = _csv_lines(_redacted(rows))
        response = StreamingHttpResponse(body, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="turns.{export}"'
    return response


def _redacted(rows: QuerySet[Any]) -> Iterator[dict[str, Any]]:
    """The rows, their text with personal data replaced where the workspace redacts (turns stored
    before it opted in included)."""
    for row in rows.iterator(chunk_size=2000):
        if row.pop("redact"):
            row.update({name: pii_redact_json(row[name]) for name in _EXPORT_TEXT})
        yield row


def _json_lines(rows: Iterator[dict[str, Any]]) -> Iterator[str]:
    yield "["
    for n, row in enumerate(rows):
        yield ("," if n else "") + json.dumps(row, cls=DjangoJSONEncoder, ensure_ascii=False)
    yield "]"


class _Echo:
    def write(self, value: str) -> str:
        return value


def _csv_lines(rows: Iterator[dict[str, Any]]) -> Iterator[str]:
    writer = csv.writer(_Echo())
    yield writer.writerow(EXPORT_FIELDS)
    for row in rows:
        yield writer.writerow(
            [
                json.dumps(row[name], ensure_ascii=False)
                if isinstance(row[name], dict | list)
                else row[name]
                for name in EXPORT_FIELDS
            ]
        )
