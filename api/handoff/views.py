"""HTTP edges of the handoff for visitors: history, live events, asking for a human, typing, feedback.

All reach the conversation through ``conversation_get_for_principal``; a widget caller only
its own session's conversation.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.http.response import HttpResponseBase
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.access import conversation_get_for_principal
from api.errors import ApiError, ErrorCode
from api.handoff.history import visitor_history_get
from api.models import Scope
from api.principal import request_principal
from conversations.models import Turn
from handoff.feedback import turn_feedback_record
from handoff.live import conversation_channel
from handoff.models import FeedbackReason, HandoffReason, TurnFeedback
from handoff.services import handoff_open, typing_signal
from streams.live import live_stream_ensure
from streams.sse import EventStreamRenderer, sse_response


class HistoryItemSerializer(serializers.Serializer[dict[str, Any]]):
    id = serializers.CharField()
    role = serializers.ChoiceField(choices=["visitor", "bot", "agent", "system"])
    text = serializers.CharField()
    created_at = serializers.DateTimeField()
    turn_id = serializers.UUIDField(allow_null=True)
    citations = serializers.ListField(child=serializers.DictField())
    author = serializers.CharField(
        required=False,
        help_text="An agent's message: the name visitors see (the agent's display name, or a "
        "neutral label such as “Agent” in the bot's language), never the login.",
    )
    feedback = serializers.DictField(required=False, allow_null=True)
    understanding = serializers.CharField(required=False)
    confidence = serializers.FloatField(required=False, allow_null=True)
    context_usage = serializers.ListField(child=serializers.DictField(), required=False)


class HandoffRequestSerializer(serializers.Serializer[dict[str, Any]]):
    reason = serializers.CharField(required=False, allow_blank=True, max_length=1000, default="")


class HandoffResponseSerializer(serializers.Serializer[dict[str, Any]]):
    owner = serializers.CharField()
    handoff_id = serializers.UUIDField()


class FeedbackSerializer(serializers.Serializer[dict[str, Any]]):
    rating = serializers.ChoiceField(choices=TurnFeedback.Rating.values)
    reasons = serializers.ListField(
        child=serializers.ChoiceField(choices=FeedbackReason.values),
        required=False,
        default=list,
        max_length=4,
    )
    comment = serializers.CharField(required=False, allow_blank=True, max_length=1000, default="")


class ConversationMessagesView(APIView):
    required_scope = Scope.CHAT

    @extend_schema(responses=HistoryItemSerializer(many=True), summary="A conversation's history")
    def get(self, request: Request, conversation_id: uuid.UUID) -> Response:
        conversation = conversation_get_for_principal(
            principal=request_principal(request), conversation_id=conversation_id
        )
        return Response(visitor_history_get(conversation=conversation))


class ConversationEventsView(APIView):
    required_scope = Scope.CHAT
    renderer_classes = [JSONRenderer, EventStreamRenderer]

    @extend_schema(
        summary=(
            "Live events of a conversation (agent_message, owner_changed, agent_typing,"
            " system_message, handoff_timed_out) as SSE"
        ),
        parameters=[
            OpenApiParameter("Last-Event-ID", str, OpenApiParameter.HEADER, required=False)
        ],
        responses={(200, "text/event-stream"): OpenApiResponse(response=OpenApiTypes.STR)},
    )
    def get(self, request: Request, conversation_id: uuid.UUID) -> HttpResponseBase:
        conversation = conversation_get_for_principal(
            principal=request_principal(request), conversation_id=conversation_id
        )
        stream_id = live_stream_ensure(channel=conversation_channel(conversation=conversation))
        return sse_response(stream_id=stream_id, last_event_id=request.headers.get("Last-Event-ID"))


class ConversationHandoffView(APIView):
    required_scope = Scope.CHAT

    @extend_schema(
        request=HandoffRequestSerializer,
        responses={202: HandoffResponseSerializer},
        summary="Ask for a human",
    )
    def post(self, request: Request, conversation_id: uuid.UUID) -> Response:
        conversation = conversation_get_for_principal(
            principal=request_principal(request), conversation_id=conversation_id
        )
        payload = HandoffRequestSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        if not conversation.bot.escalation_allowed:
            raise ApiError(
                ErrorCode.PERMISSION_DENIED, "This bot does not hand conversations to humans."
            )
        handoff = handoff_open(  # a HandoffError is a 409 conflict (api.exceptions)
            conversation_id=conversation.pk,
            reason=HandoffReason.VISITOR_REQUEST,
            detail=payload.validated_data["reason"],
        )
        return Response({"owner": "waiting_agent", "handoff_id": handoff.pk}, status=202)


class ConversationTypingView(APIView):
    required_scope = Scope.CHAT

    @extend_schema(
        request=None, responses={204: None}, summary="The visitor is typing (relayed to the agent)"
    )
    def post(self, request: Request, conversation_id: uuid.UUID) -> Response:
        conversation = conversation_get_for_principal(
            principal=request_principal(request), conversation_id=conversation_id
        )
        if conversation.owner == "agent":
            typing_signal(conversation=conversation, who="visitor")
        return Response(status=204)


class TurnFeedbackView(APIView):
    required_scope = Scope.CHAT

    @extend_schema(
        request=FeedbackSerializer, responses={200: FeedbackSerializer}, summary="Rate an answer"
    )
    def post(self, request: Request, turn_id: uuid.UUID) -> Response:
        turn = Turn.objects.filter(pk=turn_id).only("id", "conversation_id").first()
        if turn is None:
            raise ApiError(ErrorCode.NOT_FOUND)
        conversation_get_for_principal(
            principal=request_principal(request), conversation_id=turn.conversation_id
        )
        payload = FeedbackSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        feedback = turn_feedback_record(turn_id=turn.pk, **payload.validated_data)
        return Response(
            {"rating": feedback.rating, "reasons": feedback.reasons, "comment": feedback.comment}
        )
