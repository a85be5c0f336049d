"""The privacy API (scope `privacy`, named on the server key): a visitor's export, and their erasure
with its record; and the widget's "Forget me" (scope `chat`, by the visitor's session tokens).
Authenticated by the API's keys (DRF's default classes); the workspace is the key's."""

from __future__ import annotations

import uuid
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.access import conversation_get_for_principal
from api.errors import ApiError
from api.models import Scope
from api.principal import request_principal, visitor_session_read
from api.serializers import StrictCharField
from privacy.models import VisitorErasure
from privacy.services.erasure import (
    visitor_erasure_execute,
    visitor_erasure_get,
    visitor_erasure_request,
)
from privacy.services.export import visitor_export
from privacy.services.forget import visitor_forget_request
from privacy.subjects import visitor_subject_get
from privacy.tasks import visitor_erasure_execute_task


class VisitorSerializer(serializers.Serializer[dict[str, Any]]):
    external_user_id = StrictCharField(max_length=255, required=False)
    conversation_id = serializers.UUIDField(required=False)
    visitor_id = StrictCharField(max_length=64, required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        named = ("external_user_id", "conversation_id", "visitor_id")
        if sum(bool(attrs.get(name)) for name in named) != 1:
            raise serializers.ValidationError(
                "Name one of external_user_id, visitor_id or conversation_id."
            )
        return attrs


class ForgetSerializer(serializers.Serializer[dict[str, Any]]):
    session_tokens = serializers.ListField(
        child=StrictCharField(max_length=2000),
        max_length=100,
        required=False,
        help_text="The session tokens of the visitor's other conversations (besides the "
        "X-Parley-Session header's), as the widget keeps them.",
    )
    widget_visitor_id = StrictCharField(max_length=64, required=False)


class ErasureSerializer(serializers.Serializer[VisitorErasure]):
    id = serializers.UUIDField()
    status = serializers.CharField()
    subject_kind = serializers.CharField()
    counts = serializers.DictField(child=serializers.IntegerField())
    attempts = serializers.IntegerField()
    notes = serializers.ListField(
        child=serializers.CharField(),
        help_text="What the erasure could not reach (e.g. a Valkey that refused to rewrite its files).",
    )
    created_at = serializers.DateTimeField()
    completed_at = serializers.DateTimeField(allow_null=True)


def _visitor(request: Request) -> dict[str, Any]:
    payload = VisitorSerializer(data=request.data)
    payload.is_valid(raise_exception=True)
    return dict(payload.validated_data)


class VisitorExportView(APIView):
    required_scope = Scope.PRIVACY

    @extend_schema(
        request=VisitorSerializer,
        responses={200: OpenApiTypes.OBJECT},
        summary="Export a visitor's data (by external user id, visitor id or conversation id)",
    )
    def post(self, request: Request) -> Response:
        principal = request_principal(request)
        subject = visitor_subject_get(workspace_id=principal.workspace_id, **_visitor(request))
        return Response(visitor_export(subject=subject))


class VisitorErasureCollectionView(APIView):
    required_scope = Scope.PRIVACY

    @extend_schema(
        request=VisitorSerializer,
        responses={200: ErasureSerializer, 202: ErasureSerializer},
        summary="Erase a visitor's data: 200 when done, 202 when a worker finishes it",
    )
    def post(self, request: Request) -> Response:
        principal = request_principal(request)
        erasure = visitor_erasure_request(
            workspace_id=principal.workspace_id,
            requested_by=f"api_key:{principal.key_id}",
            **_visitor(request),
        )
        return _erasure_run(erasure)


class VisitorForgetView(APIView):
    """The widget's "Forget me": erases the conversations whose session tokens the caller holds."""

    required_scope = Scope.CHAT

    @extend_schema(
        request=ForgetSerializer,
        responses={200: ErasureSerializer, 202: ErasureSerializer},
        summary="Forget me: erase the conversations the visitor's session tokens prove",
    )
    def post(self, request: Request) -> Response:
        principal = request_principal(request)
        payload = ForgetSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        sessions = [principal.visitor] if principal.visitor else []
        for token in payload.validated_data.get("session_tokens", []):
            try:
                sessions.append(visitor_session_read(token=token, principal=principal))
            except ApiError:
                continue  # expired or not this caller's: it proves nothing, erases nothing
        conversation_ids = []
        for session in sessions:
            try:
                conversation_get_for_principal(
                    principal=principal.with_visitor(session),
                    conversation_id=session.conversation_id,
                )
            except ApiError:
                continue
            conversation_ids.append(session.conversation_id)
        erasure = visitor_forget_request(
            workspace_id=principal.workspace_id,
            conversation_ids=conversation_ids,
            widget_visitor_id=payload.validated_data.get("widget_visitor_id", ""),
            requested_by=f"visitor:{principal.key_id}",
        )
        return _erasure_run(erasure)


def _erasure_run(erasure: VisitorErasure) -> Response:
    """Carry the erasure out now; a failure leaves it to the task (202)."""
    if erasure.status != VisitorErasure.Status.DONE:
        try:
            erasure = visitor_erasure_execute(erasure_id=erasure.pk)
        except Exception:
            visitor_erasure_execute_task.delay_on_commit(str(erasure.pk))
            erasure.refresh_from_db()
    done = erasure.status == VisitorErasure.Status.DONE
    return Response(ErasureSerializer(erasure).data, status=200 if done else 202)


class VisitorErasureDetailView(APIView):
    required_scope = Scope.PRIVACY

    @extend_schema(responses=ErasureSerializer, summary="An erasure's state and what it removed")
    def get(self, request: Request, erasure_id: uuid.UUID) -> Response:
        principal = request_principal(request)
        erasure = visitor_erasure_get(workspace_id=principal.workspace_id, erasure_id=erasure_id)
        return Response(ErasureSerializer(erasure).data)
