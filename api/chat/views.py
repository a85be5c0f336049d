"""HTTP edges of the answer pipeline: chat turns, rag_search, chunk reads and reading (or resuming) their
event streams (PHASE2 chat API contract).

Each view authorises through the choke points of api.access, validates with api.contracts, and
either answers JSON (the pipeline runs in the request) or starts a stream runner and relays its
SSE (`stream: true` or `Accept: text/event-stream`).
"""

from __future__ import annotations

import uuid
from typing import Any

from django.http import JsonResponse
from django.http.response import HttpResponseBase
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.access import (
    chunk_get_for_principal,
    conversation_get_for_principal,
    document_ids_readable,
    stream_get_for_principal,
)
from api.chat.runners import chat_turn_run, rag_search_run
from api.contracts import (
    ChatTurnRequestSerializer,
    ChunkSerializer,
    RagSearchRequestSerializer,
    RagSearchResultSerializer,
)
from api.models import Scope
from api.principal import request_principal
from api.schema import SSE_RESPONSE
from conversations.pipeline import rag_search_answer
from handoff.services import visitor_message_body, visitor_message_receive
from streams.runners import stream_runner_open
from streams.sse import EventStreamRenderer, sse_response, wants_event_stream

_SSE = SSE_RESPONSE


class ChatTurnView(APIView):
    required_scope = Scope.CHAT
    renderer_classes = [JSONRenderer, EventStreamRenderer]

    @extend_schema(
        request=ChatTurnRequestSerializer,
        summary="Send a visitor message and get the bot's turn",
        responses={
            200: OpenApiTypes.OBJECT,
            202: OpenApiTypes.OBJECT,
            (200, "text/event-stream"): _SSE,
        },
    )
    def post(self, request: Request, conversation_id: uuid.UUID) -> HttpResponseBase:
        principal = request_principal(request)
        conversation = conversation_get_for_principal(
            principal=principal, conversation_id=conversation_id
        )
        payload = ChatTurnRequestSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        data = payload.validated_data
        client_message_id = data.get("client_message_id") or f"auto-{uuid.uuid4().hex}"
        streamed = wants_event_stream(request, stream_flag=data["stream"])
        received = visitor_message_receive(
            conversation_id=conversation.pk,
            client_message_id=client_message_id,
            text=data["message"],
            external_user_id=principal.external_user_id,
            answer_elsewhere=streamed,
        )
        if received.muted:  # JSON even to a client that asked for a stream: nothing to stream
            return JsonResponse(visitor_message_body(received), status=202)
        if not received.answer_deferred:
            return Response(received.payload)
        run = stream_runner_open(
            principal=principal,
            runner=chat_turn_run,
            kwargs={
                "conversation_id": str(conversation.pk),
                "client_message_id": client_message_id,
                "message": data["message"],
                "external_user_id": principal.external_user_id,
            },
            bot_id=conversation.bot_id,
            conversation_id=conversation.pk,
        )
        return sse_response(stream_id=run.stream_id, last_event_id=None, on_first_event=run.enqueue)


class RagSearchView(APIView):
    required_scope = Scope.RAG_SEARCH
    renderer_classes = [JSONRenderer, EventStreamRenderer]

    @extend_schema(
        request=RagSearchRequestSerializer,
        summary="Answer a question from the caller's documents",
        responses={200: RagSearchResultSerializer, (200, "text/event-stream"): _SSE},
    )
    def post(self, request: Request) -> HttpResponseBase:
        principal = request_principal(request)
        payload = RagSearchRequestSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        data = payload.validated_data
        document_ids = data.get("document_ids")
        if document_ids is not None:
            document_ids_readable(principal=principal, document_ids=document_ids)
        kwargs: dict[str, Any] = {
            "workspace_id": str(principal.workspace_id),
            "query": data["query"],
            "bot_id": str(principal.bot_id) if principal.bot_id else None,
            "conversation_id": str(principal.visitor.conversation_id)
            if principal.visitor
            else None,
            "external_user_id": principal.external_user_id,
            "document_ids": [str(d) for d in document_ids] if document_ids is not None else None,
            "caller_kind": str(principal.kind),
            "api_key_id": str(principal.key_id),
        }
        if wants_event_stream(request, stream_flag=data["stream"]):
            run = stream_runner_open(principal=principal, runner=rag_search_run, kwargs=kwargs)
            return sse_response(
                stream_id=run.stream_id, last_event_id=None, on_first_event=run.enqueue
            )
        return Response(RagSearchResultSerializer(rag_search_answer(**kwargs)).data)


class ChunkView(APIView):
    required_scope = Scope.CHUNKS_READ

    @extend_schema(responses=ChunkSerializer, summary="Read one chunk (to show a citation)")
    def get(self, request: Request, chunk_id: uuid.UUID) -> Response:
        chunk = chunk_get_for_principal(principal=request_principal(request), chunk_id=chunk_id)
        metadata = chunk.metadata or {}
        body = {
            "id": chunk.pk,
            "document_id": chunk.document_id,
            "text": chunk.text,
            "page_number": chunk.page_number,
            "bbox": list(chunk.bbox or []),
            "start_time": chunk.start_time,
            "end_time": chunk.end_time,
            "metadata": {
                "filename": metadata.get("filename", ""),
                "languages": list(metadata.get("languages", [])),
                "modality": metadata.get("modality", "text"),
            },
        }
        return Response(ChunkSerializer(body).data)


class StreamEventsView(APIView):
    renderer_classes = [JSONRenderer, EventStreamRenderer]

    @extend_schema(
        summary="Read (or resume) an event stream as SSE",
        parameters=[
            OpenApiParameter("Last-Event-ID", str, OpenApiParameter.HEADER, required=False)
        ],
        responses={(200, "text/event-stream"): SSE_RESPONSE},
    )
    def get(self, request: Request, stream_id: str) -> HttpResponseBase:
        stream_get_for_principal(principal=request_principal(request), stream_id=stream_id)
        return sse_response(stream_id=stream_id, last_event_id=request.headers.get("Last-Event-ID"))
