"""HTTP edges of the documents endpoints: parse, call one service or choke point, shape the answer."""

from __future__ import annotations

import re
import uuid

from django.conf import settings
from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.generics import GenericAPIView
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.parsers import JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from api.access import document_get_for_principal, documents_manageable_for_principal
from api.documents.serializers import (
    DocumentBatchSerializer,
    DocumentListQuerySerializer,
    DocumentSerializer,
    DocumentTextCreateSerializer,
    DocumentUpdateSerializer,
    DocumentUploadSerializer,
)
from api.documents.services import (
    document_text_file,
    document_update,
    documents_create_for_principal,
)
from api.models import Scope
from api.principal import request_principal
from rag.models import Document
from rag.services import document_delete, document_rerun

_READ_METHODS = ("GET", "HEAD", "OPTIONS")


class DocumentPagination(LimitOffsetPagination):
    default_limit = 20
    max_limit = 100


class _DocumentScopes:
    """documents:read to read, documents:write for everything else (widget keys have neither)."""

    @property
    def required_scope(self) -> str:
        method = getattr(getattr(self, "request", None), "method", "GET")
        return Scope.DOCUMENTS_READ if method in _READ_METHODS else Scope.DOCUMENTS_WRITE


def _with_bots(documents: QuerySet[Document]) -> QuerySet[Document]:
    return documents.prefetch_related("bots")


class DocumentCollectionView(_DocumentScopes, GenericAPIView[Document]):
    serializer_class = DocumentSerializer
    pagination_class = DocumentPagination
    parser_classes = [JSONParser, MultiPartParser]

    @staticmethod
    def max_request_body_bytes() -> int:
        """Uploads only: this endpoint's body cap (see api.middleware.request_body_limit)."""
        return settings.API_DOCUMENTS_MAX_REQUEST_BYTES

    @extend_schema(
        summary="List documents with their ingestion status, progress and error",
        parameters=[DocumentListQuerySerializer],
        responses=DocumentSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        query = DocumentListQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        documents = documents_manageable_for_principal(principal=request_principal(request))
        filters = query.validated_data
        if "status" in filters:
            documents = documents.filter(status=filters["status"])
        if "bot_id" in filters:
            documents = documents.filter(bots=filters["bot_id"])
        if "conversation_id" in filters:
            documents = documents.filter(conversation_id=filters["conversation_id"])
        page = self.paginate_queryset(_with_bots(documents.order_by("-created_at", "pk")))
        documents_shown = DocumentSerializer(page, many=True)  # type: ignore[arg-type]  # many=True takes a list (drf-stubs #260)
        return self.get_paginated_response(documents_shown.data)

    @extend_schema(
        summary="Add documents: upload files (multipart) or send a text (JSON)",
        request={
            "application/json": DocumentTextCreateSerializer,
            "multipart/form-data": DocumentUploadSerializer,
        },
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                str,
                OpenApiParameter.HEADER,
                required=False,
                description="Any unique string per upload (a UUID). Sent again with the same key, "
                "the upload returns the documents the first one created (200, "
                "Idempotent-Replayed: true) and creates none.",
            )
        ],
        responses={201: DocumentBatchSerializer, 200: DocumentBatchSerializer},
        examples=[
            OpenApiExample(
                "Text, for every bot of the workspace",
                request_only=True,
                media_type="application/json",
                value={"title": "Opening hours", "text": "We open at 9 on weekdays."},
            ),
            OpenApiExample(
                "Text, for no bot yet",
                request_only=True,
                media_type="application/json",
                value={"title": "Draft policy", "text": "Not yet in force.", "bot_ids": []},
            ),
        ],
    )
    def post(self, request: Request) -> Response:
        if request.content_type.startswith("multipart/"):
            upload = DocumentUploadSerializer(data=request.data)
            upload.is_valid(raise_exception=True)
            data = upload.validated_data
            files = data["files"]
            titles = [data["title"]] if data.get("title") else []
        else:
            text = DocumentTextCreateSerializer(data=request.data)
            text.is_valid(raise_exception=True)
            data = text.validated_data
            files = [
                document_text_file(
                    title=data["title"], text=data["text"], text_format=data["format"]
                )
            ]
            titles = [data["title"]]
        outcome = documents_create_for_principal(
            principal=request_principal(request),
            files=files,
            titles=titles,
            bot_ids=data.get("bot_ids"),  # None (left out): every bot the key may use
            conversation_id=data.get("conversation_id"),
            idempotency_key=_idempotency_key(request),
        )
        created = _with_bots(
            Document.objects.filter(pk__in=[document.pk for document in outcome.documents])
        )
        shown = DocumentSerializer(created.order_by("created_at", "pk"), many=True)  # type: ignore[arg-type]  # many=True takes a list (drf-stubs #260)
        body = {"documents": shown.data}
        if outcome.replayed:
            return Response(body, 200, headers={"Idempotent-Replayed": "true"})
        return Response(body, 201)


class DocumentDetailView(_DocumentScopes, GenericAPIView[Document]):
    serializer_class = DocumentSerializer

    @extend_schema(
        summary="A document with its ingestion status, progress and error",
        responses=DocumentSerializer,
    )
    def get(self, request: Request, document_id: uuid.UUID) -> Response:
        document = document_get_for_principal(
            principal=request_principal(request), document_id=document_id
        )
        return Response(
            DocumentSerializer(_with_bots(Document.objects.filter(pk=document.pk)).get()).data
        )

    @extend_schema(
        summary="Rename a document or replace the bots it is attached to",
        request=DocumentUpdateSerializer,
        responses=DocumentSerializer,
    )
    def patch(self, request: Request, document_id: uuid.UUID) -> Response:
        document = document_get_for_principal(
            principal=request_principal(request), document_id=document_id
        )
        payload = DocumentUpdateSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        updated = document_update(
            document=document,
            principal=request_principal(request),
            title=payload.validated_data.get("title"),
            bot_ids=payload.validated_data.get("bot_ids"),
        )
        return Response(DocumentSerializer(updated).data)

    @extend_schema(summary="Delete a document, its chunks and its file", responses={204: None})
    def delete(self, request: Request, document_id: uuid.UUID) -> Response:
        document = document_get_for_principal(
            principal=request_principal(request), document_id=document_id
        )
        document_delete(document_id=document.pk)
        return Response(status=204)


class DocumentRerunView(_DocumentScopes, GenericAPIView[Document]):
    serializer_class = DocumentSerializer

    @extend_schema(
        summary="Ingest a document again (already queued or running: left as it is)",
        request=None,
        responses={202: DocumentSerializer},
    )
    def post(self, request: Request, document_id: uuid.UUID) -> Response:
        document = document_get_for_principal(
            principal=request_principal(request), document_id=document_id
        )
        document_rerun(document_id=document.pk)
        return Response(
            DocumentSerializer(_with_bots(Document.objects.filter(pk=document.pk)).get()).data,
            status=202,
        )


_IDEMPOTENCY_KEY = re.compile(r"[\x21-\x7e]{1,200}")


def _idempotency_key(request: Request) -> str:
    """The upload's Idempotency-Key header ("" when absent): up to 200 visible ASCII characters."""
    key = request.headers.get("Idempotency-Key", "")
    if key and not _IDEMPOTENCY_KEY.fullmatch(key):
        raise ValidationError(
            {"Idempotency-Key": ["Up to 200 visible ASCII characters (a UUID, say)."]}
        )
    return key
