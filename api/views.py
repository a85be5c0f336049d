"""HTTP edges of the API app: who-am-I, visitor sessions, stream reading, and the /api/ error handlers."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.views import defaults
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.access import bot_get_for_principal, stream_get_for_principal
from api.errors import ErrorCode
from api.exceptions import error_response
from api.middleware import is_api_path
from api.models import Scope
from api.principal import request_principal
from api.schema import SSE_RESPONSE
from api.serializers import PrincipalSerializer, SessionCreateSerializer, SessionSerializer
from api.services import visitor_session_start
from streams.sse import EventStreamRenderer, sse_response


class MeView(APIView):
    @extend_schema(responses=PrincipalSerializer, summary="Who the presented key (and session) is")
    def get(self, request: Request) -> Response:
        principal = request_principal(request)
        return Response(
            {
                "kind": principal.kind,
                "workspace_id": principal.workspace_id,
                "bot_id": principal.bot_id,
                "scopes": sorted(principal.scopes),
                "external_user_id": principal.external_user_id,
                "conversation_id": principal.visitor.conversation_id if principal.visitor else None,
            }
        )


class SessionCreateView(APIView):
    required_scope = Scope.CHAT

    @extend_schema(
        request=SessionCreateSerializer,
        responses={201: SessionSerializer},
        summary="Start a conversation",
    )
    def post(self, request: Request) -> Response:
        principal = request_principal(request)
        payload = SessionCreateSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        bot_id = principal.bot_id or payload.validated_data.get("bot_id")
        if bot_id is None:
            raise ValidationError({"bot_id": ["This field is required with a server key."]})
        bot = bot_get_for_principal(principal=principal, bot_id=bot_id)
        session, token = visitor_session_start(
            principal=principal, bot=bot, visitor_id=payload.validated_data.get("visitor_id")
        )
        body = {
            "conversation_id": session.conversation_id,
            "bot_id": session.bot_id,
            "visitor_id": session.visitor_id,
            "session_token": token,
        }
        return Response(SessionSerializer(body).data, status=201)


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


def not_found_handler(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Django's handler404: JSON on /api/ paths, the regular page elsewhere."""
    if is_api_path(request.path):
        return error_response(ErrorCode.NOT_FOUND)
    return defaults.page_not_found(request, exception)


def server_error_handler(request: HttpRequest) -> HttpResponse:
    if is_api_path(request.path):
        return error_response(ErrorCode.INTERNAL_ERROR)
    return defaults.server_error(request)
