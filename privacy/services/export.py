"""A visitor's data as one JSON document: their conversations (turns with feedback, messages,
handoffs), their searches and their private documents (with the text Parley extracted), read in a
fixed number of queries whatever their number."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.utils import timezone

from conversations.models import Conversation, RagSearchExecution, Turn
from handoff.models import Handoff, Message, TurnFeedback
from privacy.subjects import VisitorSubject
from rag.models import Chunk, Document

EXPORT_FORMAT = "parley.visitor_export.v1"


def visitor_export(*, subject: VisitorSubject) -> dict[str, Any]:
    """Everything Parley stores of the visitor, as it is stored (redacted where the workspace
    redacts)."""
    conversation_ids = subject.conversation_ids()
    return {
        "format": EXPORT_FORMAT,
        "exported_at": timezone.now().isoformat(),
        "workspace_id": str(subject.workspace_id),
        "subject": {"kind": subject.kind, "value": subject.value},
        "conversations": _conversations(conversation_ids),
        "searches": _searches(subject, conversation_ids),
        "documents": _documents(subject, conversation_ids),
    }


def _conversations(ids: list[Any]) -> list[dict[str, Any]]:
    feedback = {
        row.turn_id: {
            "rating": row.rating,
            "reasons": list(row.reasons),
            "comment": row.comment,
            "created_at": row.created_at.isoformat(),
        }
        for row in TurnFeedback.objects.filter(turn__conversation_id__in=ids)
    }
    turns: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for turn in Turn.objects.filter(conversation_id__in=ids).order_by("created_at"):
        turns[turn.conversation_id].append(
            {
                "id": str(turn.pk),
                "client_message_id": turn.client_message_id,
                "created_at": turn.created_at.isoformat(),
                "question": turn.user_text,
                "answer": turn.answer,
                "shown": turn.reply_text,
                "status": turn.status,
                "topic": turn.topic,
                "feedback": feedback.get(turn.pk),
            }
        )
    messages: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for message in Message.objects.filter(conversation_id__in=ids).order_by("created_at"):
        messages[message.conversation_id].append(
            {
                "id": str(message.pk),
                "role": message.role,
                "text": message.text,
                "created_at": message.created_at.isoformat(),
            }
        )
    handoffs: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for handoff in Handoff.objects.filter(conversation_id__in=ids).order_by("opened_at"):
        handoffs[handoff.conversation_id].append(
            {
                "id": str(handoff.pk),
                "reason": handoff.reason,
                "detail": handoff.detail,
                "opened_at": handoff.opened_at.isoformat(),
                "outcome": handoff.outcome,
            }
        )
    rows = Conversation.objects.filter(pk__in=ids).select_related("bot").order_by("created_at")
    return [
        {
            "id": str(conversation.pk),
            "bot": {"id": str(conversation.bot_id), "name": conversation.bot.name},
            "channel": conversation.channel,
            "visitor_id": conversation.visitor_id,
            "widget_visitor_id": conversation.widget_visitor_id,
            "external_user_id": conversation.external_user_id,
            "owner": conversation.owner,
            "created_at": conversation.created_at.isoformat(),
            "turns": turns[conversation.pk],
            "messages": messages[conversation.pk],
            "handoffs": handoffs[conversation.pk],
        }
        for conversation in rows
    ]


def _searches(subject: VisitorSubject, ids: list[Any]) -> list[dict[str, Any]]:
    rows = RagSearchExecution.objects.filter(subject.searches_filter(ids)).order_by("created_at")
    return [
        {
            "execution_id": row.execution_id,
            "created_at": row.created_at.isoformat(),
            "conversation_id": str(row.conversation_id) if row.conversation_id else None,
            "query": row.query,
            "response": row.response,
            "status": row.status,
        }
        for row in rows
    ]


def _documents(subject: VisitorSubject, ids: list[Any]) -> list[dict[str, Any]]:
    documents = list(Document.objects.filter(subject.documents_filter(ids)).order_by("created_at"))
    texts: dict[Any, list[str]] = defaultdict(list)
    chunks = Chunk.objects.filter(document__in=documents).order_by("document_id", "ordinal")
    for document_id, text in chunks.values_list("document_id", "text"):
        texts[document_id].append(text)
    return [
        {
            "id": str(document.pk),
            "title": document.title,
            "filename": document.filename,
            "mime_type": document.mime_type,
            "status": document.status,
            "conversation_id": str(document.conversation_id) if document.conversation_id else None,
            "created_at": document.created_at.isoformat(),
            # The text Parley extracted and searches, chunk by chunk (overlaps included).
            "chunks": texts[document.pk],
        }
        for document in documents
    ]
