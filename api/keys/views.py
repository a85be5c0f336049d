"""HTTP edges of the API's keys: who the presented key (and session) is, and visitor sessions."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.access import bot_get_for_principal
from api.models import Scope
from api.principal import request_principal
from api.serializers import PrincipalSerializer, SessionCreateSerializer, SessionSerializer
from api.services import visitor_session_start


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
            principal=principal,
            bot=bot,
            visitor_id=payload.validated_data.get("visitor_id"),
            widget_visitor_id=payload.validated_data.get("widget_visitor_id"),
        )
        body = {
            "conversation_id": session.conversation_id,
            "bot_id": session.bot_id,
            "visitor_id": session.visitor_id,
            "widget_visitor_id": payload.validated_data.get("widget_visitor_id", "")
            if principal.kind == "widget"
            else "",
            "session_token": token,
        }
        return Response(SessionSerializer(body).data, status=201)
