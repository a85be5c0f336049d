"""Stream runners of the answer pipeline (run by the Celery worker, see streams.runners): a chat turn and a
rag_search, each streaming its phases and answer deltas, then its result as `tool_end`."""

from __future__ import annotations

import uuid

from conversations.pipeline import rag_search_answer
from handoff.services import visitor_message_body, visitor_message_receive
from streams.sse import StreamEmitter


def chat_turn_run(
    *,
    emit: StreamEmitter,
    conversation_id: str,
    client_message_id: str,
    message: str,
    external_user_id: str | None,
) -> None:
    received = visitor_message_receive(
        conversation_id=uuid.UUID(conversation_id),
        client_message_id=client_message_id,
        text=message,
        external_user_id=external_user_id,
        emitter=emit,
    )
    emit.end(result=visitor_message_body(received))


def rag_search_run(
    *,
    emit: StreamEmitter,
    workspace_id: str,
    query: str,
    bot_id: str | None,
    conversation_id: str | None,
    external_user_id: str | None,
    document_ids: list[str] | None,
    caller_kind: str = "",
    api_key_id: str | None = None,
) -> None:
    result = rag_search_answer(
        workspace_id=workspace_id,
        query=query,
        bot_id=bot_id,
        conversation_id=conversation_id,
        external_user_id=external_user_id,
        document_ids=document_ids,
        emitter=emit,
        caller_kind=caller_kind,
        api_key_id=api_key_id,
    )
    emit.end(result=result)
