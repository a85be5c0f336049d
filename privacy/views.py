"""The privacy API (scope `privacy`, named on the server key): a visitor's export, and their erasure
with its record. Authenticated by the API's keys (DRF's default classes); the workspace is the key's."""

from __future__ import annotations

import uuid
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.models import Scope
from api.principal import request_principal
from api.serializers import StrictCharField
from privacy.models import VisitorErasure
from privacy.services.erasure import (
    visitor_erasure_execute,
    visitor_erasure_get,
    visitor_erasure_request,
)
from privacy.services.export import visitor_export
from privacy.subjects import visitor_subject_get
from privacy.tasks import visitor_erasure_execute_task


class VisitorSerializer(serializers.Serializer[dict[str, Any]]):
    external_user_id = StrictCharField(max_length=255, required=False)
    conversation_id = serializers.UUIDField(required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if bool(attrs.get("external_user_id")) == bool(attrs.get("conversation_id")):
            raise serializers.ValidationError(
                "Name either external_user_id or conversation_id, not both."
            )
        return attrs


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
        summary="Export a visitor's data (by external user id or conversation id)",
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
