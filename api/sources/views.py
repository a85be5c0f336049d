"""HTTP edges of the sources endpoints: parse, call one service or choke point, shape the answer.
Reading takes documents:read, everything else documents:write (sources are knowledge)."""

from __future__ import annotations

import uuid

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework.generics import GenericAPIView
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request
from rest_framework.response import Response

from api.access import source_get_for_principal, sources_for_principal
from api.models import Scope
from api.principal import request_principal
from api.sources.serializers import (
    SourceCreateSerializer,
    SourceListQuerySerializer,
    SourceSerializer,
    SourceSyncSerializer,
)
from api.sources.services import source_create_for_principal
from sources.models import Source, SourceSync
from sources.services import source_delete, source_sync_request

_READ_METHODS = ("GET", "HEAD", "OPTIONS")


class SourcePagination(LimitOffsetPagination):
    default_limit = 20
    max_limit = 100


class _SourceScopes:
    @property
    def required_scope(self) -> str:
        method = getattr(getattr(self, "request", None), "method", "GET")
        return Scope.DOCUMENTS_READ if method in _READ_METHODS else Scope.DOCUMENTS_WRITE


def _with_bots(sources: QuerySet[Source]) -> QuerySet[Source]:
    return sources.prefetch_related("bots")


class SourceCollectionView(_SourceScopes, GenericAPIView[Source]):
    serializer_class = SourceSerializer
    pagination_class = SourcePagination

    @extend_schema(
        summary="List knowledge sources with their last sync",
        parameters=[SourceListQuerySerializer],
        responses=SourceSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        SourceListQuerySerializer(data=request.query_params).is_valid(raise_exception=True)
        sources = sources_for_principal(principal=request_principal(request))
        page = self.paginate_queryset(_with_bots(sources.order_by("name", "pk")))
        return self.get_paginated_response(SourceSerializer(page, many=True).data)

    @extend_schema(
        summary="Add a knowledge source (a website or a Git repository of docs) and sync it",
        request=SourceCreateSerializer,
        responses={201: SourceSerializer},
        examples=[
            OpenApiExample(
                "A Git repository of Markdown docs",
                request_only=True,
                value={
                    "name": "Handbook",
                    "kind": "git",
                    "config": {
                        "repository_url": "https://github.com/acme/handbook.git",
                        "branch": "main",
                        "path": "docs",
                        "base_url": "https://docs.acme.example/",
                    },
                },
            ),
            OpenApiExample(
                "A website",
                request_only=True,
                value={
                    "name": "Help center",
                    "kind": "website",
                    "config": {"start_urls": ["https://help.acme.example/"], "max_pages": 500},
                    "schedule_minutes": 1440,
                },
            ),
        ],
    )
    def post(self, request: Request) -> Response:
        payload = SourceCreateSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        data = payload.validated_data
        source, _ = source_create_for_principal(
            principal=request_principal(request),
            name=data["name"],
            kind=data["kind"],
            config=data["config"],
            bot_ids=data.get("bot_ids"),
            credentials=data.get("credentials"),
            schedule_minutes=data["schedule_minutes"],
            sync=data["sync"],
        )
        return Response(
            SourceSerializer(_with_bots(Source.objects.filter(pk=source.pk)).get()).data, 201
        )


class SourceDetailView(_SourceScopes, GenericAPIView[Source]):
    serializer_class = SourceSerializer

    @extend_schema(
        summary="A knowledge source with its last sync's counts", responses=SourceSerializer
    )
    def get(self, request: Request, source_id: uuid.UUID) -> Response:
        source = source_get_for_principal(principal=request_principal(request), source_id=source_id)
        return Response(
            SourceSerializer(_with_bots(Source.objects.filter(pk=source.pk)).get()).data
        )

    @extend_schema(
        summary="Delete a knowledge source: its pages' documents and chunks are retired first",
        responses={204: None},
    )
    def delete(self, request: Request, source_id: uuid.UUID) -> Response:
        source = source_get_for_principal(principal=request_principal(request), source_id=source_id)
        source_delete(source_id=source.pk)
        return Response(status=204)


class SourceSyncView(_SourceScopes, GenericAPIView[SourceSync]):
    serializer_class = SourceSyncSerializer

    @extend_schema(
        summary="Sync a knowledge source now (one already queued or running is returned as it is)",
        request=None,
        responses={202: SourceSyncSerializer},
    )
    def post(self, request: Request, source_id: uuid.UUID) -> Response:
        source = source_get_for_principal(principal=request_principal(request), source_id=source_id)
        sync, _ = source_sync_request(source=source, trigger="api")
        return Response(SourceSyncSerializer(sync).data, status=202)
